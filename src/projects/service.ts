// Projects group the apps of one product; tokens name the project in their audience, as ZITADEL's do. Also their role
// settings, deactivation and removal.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { z } from 'zod';
import { failedPrecondition, notFound } from '../platform/errors.ts';
import { name200, parseInput } from '../platform/input.ts';
import { newId } from '../platform/ids.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import {
  deleteProject,
  findProjectById,
  insertProject,
  lockProject,
  updateProjectRow,
  type ProjectRow,
  type ProjectSettings,
} from './queries.ts';

export type { ProjectRow };

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
      eventType: EVENT.project.added,
      payload: { name },
      resourceOwner: input.orgId,
      creator,
    });
    await insertProject(tx, { id: projectId, orgId: input.orgId, name, sequence: event.sequence });
    return { projectId, details: createdDetails(event) };
  });
}

export const projectNotFound = () => notFound('Project not found', 'PROJECT-ggr9s');

/** A project of the org given: one of another org is answered like one that does not exist, so ids of other orgs cannot
 *  be probed. */
export async function getProject(db: Queryable, orgId: string, projectId: string): Promise<ProjectRow> {
  const project = await findProjectById(db, projectId);
  if (project?.org_id !== orgId) throw projectNotFound();
  return project;
}

/** The project locked for a change in this transaction, under the same rule as getProject. */
export async function lockOrgProject(tx: Queryable, orgId: string, projectId: string): Promise<ProjectRow> {
  const project = await lockProject(tx, projectId);
  if (project?.org_id !== orgId) throw projectNotFound();
  return project;
}

export interface ProjectRef {
  orgId: string;
  projectId: string;
}

const updateProjectSchema = z.object({
  name: name200,
  projectRoleAssertion: z.boolean(),
  projectRoleCheck: z.boolean(),
  hasProjectCheck: z.boolean(),
});

/** UpdateProject replaces the name and the three role settings; a request that changes nothing is refused as
 *  ZITADEL refuses it (FAILED_PRECONDITION). */
export async function updateProject(
  db: Db,
  ref: ProjectRef,
  input: ProjectSettings,
  creator: string,
): Promise<Details> {
  const settings = parseInput(updateProjectSchema, input, 'UpdateProjectRequest', 'PROJECT-Inv4l');
  return db.tx(async (tx) => {
    const p = await lockOrgProject(tx, ref.orgId, ref.projectId);
    if (
      p.name === settings.name &&
      p.project_role_assertion === settings.projectRoleAssertion &&
      p.project_role_check === settings.projectRoleCheck &&
      p.has_project_check === settings.hasProjectCheck
    )
      throw failedPrecondition('Project has not been changed', 'COMMAND-2M0fs');
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: p.id,
      eventType: EVENT.project.changed,
      payload: settings,
      resourceOwner: p.org_id,
      creator,
    });
    await updateProjectRow(tx, p.id, {
      ...settings,
      state: p.state,
      sequence: event.sequence,
      changedAt: event.createdAt,
    });
    return changedDetails(event);
  });
}

/** DeactivateProject / ReactivateProject: an inactive project's apps stop signing in and its tokens turn inactive
 *  (apps/service.ts findClientApp, oidc/queries.ts). */
export async function setProjectState(
  db: Db,
  ref: ProjectRef,
  state: 'active' | 'inactive',
  creator: string,
): Promise<Details> {
  return db.tx(async (tx) => {
    const p = await lockOrgProject(tx, ref.orgId, ref.projectId);
    if (p.state === state)
      throw state === 'inactive'
        ? failedPrecondition('Project is not active', 'COMMAND-mki55') // command/project.go DeactivateProject
        : failedPrecondition('Project is not inactive', 'COMMAND-5M9bs'); // ReactivateProject
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: p.id,
      eventType: state === 'inactive' ? EVENT.project.deactivated : EVENT.project.reactivated,
      resourceOwner: p.org_id,
      creator,
    });
    await updateProjectRow(tx, p.id, {
      name: p.name,
      projectRoleAssertion: p.project_role_assertion,
      projectRoleCheck: p.project_role_check,
      hasProjectCheck: p.has_project_check,
      state,
      sequence: event.sequence,
      changedAt: event.createdAt,
    });
    return changedDetails(event);
  });
}

/** RemoveProject: its apps, roles and grants go with it in the same transaction. */
export async function removeProject(db: Db, ref: ProjectRef, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    const p = await lockOrgProject(tx, ref.orgId, ref.projectId);
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: p.id,
      eventType: EVENT.project.removed,
      payload: { name: p.name },
      resourceOwner: p.org_id,
      creator,
    });
    await deleteProject(tx, p.id);
    return changedDetails(event);
  });
}

/** ListProjects of the org in context, by name (ProjectNameQuery); projects_name_unique serves both. */
export async function listProjects(
  db: Db,
  orgId: string,
  names: TextFilter[],
  page: Page,
  /** Only these (a project member's projects); absent: every project of the org. */
  ids?: ReadonlySet<string>,
): Promise<ListResult<ProjectRow>> {
  const where = new Conditions().add('p.org_id = ?', orgId);
  if (ids) where.add('p.id = ANY(?::text[])', [...ids]);
  for (const name of names) where.text('p.name', name);
  return listPage<ProjectRow>(
    db,
    {
      select: `p.id, p.org_id, p.name, p.state, p.project_role_assertion, p.project_role_check, p.has_project_check,
        p.created_at, p.changed_at, p.sequence`,
      from: 'projects p',
      where,
      orderBy: ['lower(p.name)', 'p.id'],
    },
    page,
  );
}
