// Projects group the apps of one product; tokens name the project in their audience (compat.md §6).
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { z } from 'zod';
import { notFound } from '../platform/errors.ts';
import { name200, parseInput } from '../platform/input.ts';
import { newId } from '../platform/ids.ts';
import { findProjectById, insertProject, type ProjectRow } from './queries.ts';

const addProjectSchema = z.object({ name: name200 });

export async function addProject(
  db: Db,
  input: { orgId: string; name: string },
  creator: string,
): Promise<{ projectId: string; details: Details }> {
  const { name } = parseInput(addProjectSchema, input, 'AddProjectRequest', 'PROJECT-Name');
  const projectId = newId();
  return db.tx(async (tx) => {
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
}

/** A project of the org given: one of another org is answered like one that does not exist (compat.md §1), so ids
 *  of other orgs cannot be probed. */
export async function getProject(db: Db, orgId: string, projectId: string): Promise<ProjectRow> {
  const project = await findProjectById(db, projectId);
  if (project?.org_id !== orgId) throw notFound('Project not found', 'PROJECT-ggr9s');
  return project;
}
