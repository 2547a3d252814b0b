// Projects group the apps of one product; tokens name the project in their audience (compat.md §6).
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { invalidArgument, mapConstraint, alreadyExists, fromDatabaseError, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { findProjectById, insertProject, type ProjectRow } from './queries.ts';

mapConstraint('projects_name_unique', () => alreadyExists('Project already exists', 'PROJECT-3M9sd'));
mapConstraint('projects_org_fk', () => notFound('Organisation not found', 'PROJECT-2n8fS'));

export async function addProject(
  db: Db,
  input: { orgId: string; name: string },
  creator: string,
): Promise<{ projectId: string; details: Details }> {
  const name = input.name.trim();
  if (!name || name.length > 200)
    throw invalidArgument(
      'invalid AddProjectRequest.Name: value length must be between 1 and 200 runes, inclusive',
      'PROJECT-Name',
    );
  const projectId = newId();
  try {
    return await db.tx(async (tx) => {
      const event = await appendEvent(tx, {
        aggregateType: 'project',
        aggregateId: projectId,
        eventType: 'project.added',
        payload: { name },
        resourceOwner: input.orgId,
        creator,
      });
      await insertProject(tx, { id: projectId, orgId: input.orgId, name, sequence: event.sequence });
      return { projectId, details: createdDetails(event) };
    });
  } catch (error) {
    fromDatabaseError(error);
  }
}

export async function getProject(db: Db, projectId: string): Promise<ProjectRow> {
  const project = await findProjectById(db, projectId);
  if (!project) throw notFound('Project not found', 'PROJECT-ggr9s');
  return project;
}
