// Project grants (the B2B case): the org that owns a project lends it, with a subset of its roles, to another org,
// whose owners may then grant their own users only the lent roles (user grants with projectGrantId). The owner manages
// the grant; the granted org sees it in ListGrantedProjects. Another org's ids are 404.
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { failedPrecondition, notFound, precondition } from '../platform/errors.ts';
import { parseInput } from '../platform/input.ts';
import { newId } from '../platform/ids.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import { getProject, lockOrgProject } from '../projects/service.ts';
import { checkRoleKeys } from '../projects/roles.ts';
import { getOrgById } from '../orgs/service.ts';
import {
  deleteProjectGrant,
  findProjectGrant,
  holdsProjectGrant,
  insertProjectGrant,
  PROJECT_GRANT_COLUMNS,
  PROJECT_GRANT_TABLES,
  updateProjectGrant,
  type ProjectGrantRow,
} from './project-grant-queries.ts';

export type { ProjectGrantRow };

export const projectGrantNotFound = () => notFound('Project grant not found', 'PROJECT-D8JxR');
/** AddProjectGrant's error ID for a granted org that does not exist (FAILED_PRECONDITION). */
export const GRANTED_ORG_MISSING = 'COMMAND-3m9gg';

const roleKeys = z.array(z.string().min(1, 'value length must be at least 1 runes').max(200)).max(1000);

/** A project grant as its owner names it: the owner org in context, the project and the grant. */
export interface ProjectGrantRef {
  orgId: string;
  projectId: string;
  grantId: string;
}

export async function addProjectGrant(
  db: Db,
  input: { orgId: string; projectId: string; grantedOrgId: string; roleKeys: string[] },
  creator: string,
): Promise<{ grantId: string; details: Details }> {
  const keys = [...new Set(parseInput(roleKeys, input.roleKeys, 'AddProjectGrantRequest', 'PROJECT-1m9fS'))];
  // ZITADEL's preconditions and IDs (command/project_grant.go AddProjectGrant, searchProjectGrantState): each is
  // FAILED_PRECONDITION, the project and the granted org by their own lookups.
  if (input.grantedOrgId === input.orgId)
    throw failedPrecondition('A project cannot be granted to the organisation that owns it', 'PROJECT-ckUpbvboAH');
  const grantId = newId();
  return db.tx(async (tx) => {
    const project = await precondition(
      lockOrgProject(tx, input.orgId, input.projectId),
      'Project not found',
      'COMMAND-m9gsd',
    );
    await precondition(getOrgById(tx, input.grantedOrgId), 'Organisation not found', GRANTED_ORG_MISSING);
    await checkRoleKeys(tx, project.id, keys, 'COMMAND-6m9gd');
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: project.id,
      eventType: EVENT.project.grantAdded,
      payload: { grantId, grantedOrgId: input.grantedOrgId, roleKeys: keys },
      resourceOwner: project.org_id,
      creator,
    });
    await insertProjectGrant(tx, {
      id: grantId,
      projectId: project.id,
      grantedOrgId: input.grantedOrgId,
      roleKeys: keys,
      sequence: event.sequence,
    });
    return { grantId, details: createdDetails(event) };
  });
}

/** The grant of the owner's project named: any other is not found. */
export async function getProjectGrant(db: Queryable, ref: ProjectGrantRef, lock = false): Promise<ProjectGrantRow> {
  const grant = await findProjectGrant(db, ref.grantId, lock);
  if (grant?.project_owner_id !== ref.orgId || grant.project_id !== ref.projectId) throw projectGrantNotFound();
  return grant;
}

/** The grant as the org it was granted to uses it (AddUserGrant with projectGrantId), of the project named when
 *  one is. */
export async function receivedProjectGrant(
  db: Queryable,
  grantedOrgId: string,
  grantId: string,
  projectId?: string,
): Promise<ProjectGrantRow> {
  const grant = await findProjectGrant(db, grantId);
  if (grant?.granted_org_id !== grantedOrgId || (projectId !== undefined && grant.project_id !== projectId))
    throw projectGrantNotFound();
  return grant;
}

export async function updateProjectGrantRoles(
  db: Db,
  ref: ProjectGrantRef,
  input: { roleKeys: string[] },
  creator: string,
): Promise<Details> {
  const keys = [...new Set(parseInput(roleKeys, input.roleKeys, 'UpdateProjectGrantRequest', 'PROJECT-1m9fS'))];
  return changeProjectGrant(db, ref, creator, async (grant, tx) => {
    if (keys.length === grant.role_keys.length && keys.every((k) => grant.role_keys.includes(k)))
      throw failedPrecondition('Project grant has not been changed', 'PROJECT-0o0pL');
    await checkRoleKeys(tx, grant.project_id, keys, 'COMMAND-6m9gd');
    return { eventType: EVENT.project.grantChanged, roleKeys: keys, state: grant.state };
  });
}

export async function setProjectGrantState(
  db: Db,
  ref: ProjectGrantRef,
  state: 'active' | 'inactive',
  creator: string,
): Promise<Details> {
  return changeProjectGrant(db, ref, creator, async (grant) => {
    if (grant.state === state)
      throw state === 'inactive'
        ? failedPrecondition('Project grant is not active', 'PROJECT-47fu8')
        : failedPrecondition('Project grant is not inactive', 'PROJECT-47fu8'); // ZITADEL's one ID for both
    const eventType = state === 'inactive' ? EVENT.project.grantDeactivated : EVENT.project.grantReactivated;
    return { eventType, roleKeys: grant.role_keys, state };
  });
}

async function changeProjectGrant(
  db: Db,
  ref: ProjectGrantRef,
  creator: string,
  decide: (
    grant: ProjectGrantRow,
    tx: Queryable,
  ) => Promise<{ eventType: EventType<'project'>; roleKeys: string[]; state: 'active' | 'inactive' }>,
): Promise<Details> {
  return db.tx(async (tx) => {
    const grant = await getProjectGrant(tx, ref, true);
    const change = await decide(grant, tx);
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: grant.project_id,
      eventType: change.eventType,
      payload: { grantId: grant.id, roleKeys: change.roleKeys },
      resourceOwner: grant.project_owner_id,
      creator,
    });
    await updateProjectGrant(tx, grant.id, { ...change, sequence: event.sequence, changedAt: event.createdAt });
    return changedDetails(event);
  });
}

/** RemoveProjectGrant: the user grants made under it go with it. */
export async function removeProjectGrant(db: Db, ref: ProjectGrantRef, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    const grant = await getProjectGrant(tx, ref, true);
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: grant.project_id,
      eventType: EVENT.project.grantRemoved,
      payload: { grantId: grant.id },
      resourceOwner: grant.project_owner_id,
      creator,
    });
    await deleteProjectGrant(tx, grant.id);
    return changedDetails(event);
  });
}

function grantPage(db: Db, where: Conditions, page: Page): Promise<ListResult<ProjectGrantRow>> {
  return listPage<ProjectGrantRow>(
    db,
    { select: PROJECT_GRANT_COLUMNS, from: PROJECT_GRANT_TABLES, where, orderBy: ['pg.created_at', 'pg.id'] },
    page,
  );
}

/** ZITADEL's ProjectGrantQuery: the project's name, or a role key the grant lends (whatever its method says). */
export type ProjectGrantFilter = { projectName: TextFilter } | { roleKey: string };

/** ListProjectGrants: the grants of one of the owner's projects (project_grants_org_unique), narrowed. */
export async function listProjectGrants(
  db: Db,
  orgId: string,
  projectId: string,
  filters: ProjectGrantFilter[],
  page: Page,
): Promise<ListResult<ProjectGrantRow>> {
  const project = await getProject(db, orgId, projectId);
  const where = new Conditions().add('pg.project_id = ?', project.id);
  for (const f of filters) {
    if ('projectName' in f) where.text('p.name', f.projectName);
    else where.add('? = ANY (pg.role_keys)', f.roleKey);
  }
  return grantPage(db, where, page);
}

/** ListGrantedProjects: the projects lent to the org in context, by project name. */
export function listGrantedProjects(
  db: Db,
  orgId: string,
  names: TextFilter[],
  page: Page,
): Promise<ListResult<ProjectGrantRow>> {
  const where = new Conditions().add('pg.granted_org_id = ?', orgId);
  for (const name of names) where.text('p.name', name);
  return grantPage(db, where, page);
}

/** Whether the org holds an active grant of the project (hasProjectCheck at sign-in). */
export function orgHoldsProjectGrant(db: Queryable, projectId: string, orgId: string): Promise<boolean> {
  return holdsProjectGrant(db, projectId, orgId);
}
