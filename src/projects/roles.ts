// Project roles: keys a project defines and user grants hand out. A duplicate key is ALREADY_EXISTS; removing a role
// takes it out of every grant at once, and the key is free again.
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument, notFound, precondition } from '../platform/errors.ts';
import { parseInput } from '../platform/input.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import {
  deleteRole,
  findRole,
  insertRoles,
  missingRoleKeys,
  updateRole,
  type NewRole,
  type RoleRow,
} from './queries.ts';
import { getProject, lockOrgProject, type ProjectRef } from './service.ts';

// ZITADEL's limits (AddProjectRoleRequest): key and display name 1..200, group at most 200.
const LENGTH = 'value length must be between 1 and 200 runes, inclusive';
const roleSchema = z.object({
  key: z.string().trim().min(1, LENGTH).max(200, LENGTH),
  displayName: z.string().trim().min(1, LENGTH).max(200, LENGTH),
  group: z.string().trim().max(200, 'value length must be at most 200 runes').default(''),
});
const rolesSchema = z.object({ roles: z.array(roleSchema).min(1, 'value must contain at least 1 item(s)').max(1000) });

// ZITADEL's IDs (command/project_role.go): ChangeProjectRole COMMAND-vv8M9, RemoveProjectRole COMMAND-m9vMf.
const roleNotFound = (id: string) => notFound('Project role not found', id);

/** The project a role is added to or changed on: missing (or another org's), FAILED_PRECONDITION as ZITADEL's
 *  checkProjectExists answers it (command/project.go, COMMA-VCnwD). */
const projectOfRoles = (tx: Queryable, ref: ProjectRef) =>
  precondition(lockOrgProject(tx, ref.orgId, ref.projectId), 'Project not found', 'COMMA-VCnwD');

/** AddProjectRole and BulkAddProjectRoles: all roles or none (one transaction; a duplicate key is 409). */
export async function addProjectRoles(
  db: Db,
  ref: ProjectRef,
  input: { roles: { key: string; displayName: string; group?: string }[] },
  request: string,
  creator: string,
): Promise<Details> {
  const { roles } = parseInput(rolesSchema, input, request, 'PROJECT-Inv4l');
  const keys = new Set<string>();
  for (const [i, role] of roles.entries()) {
    if (keys.has(role.key)) throw invalidArgument(`invalid ${request}.Roles[${i}].Key: key given twice`, 'PROJECT-2x');
    keys.add(role.key);
  }
  return db.tx(async (tx) => {
    const project = await projectOfRoles(tx, ref);
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: project.id,
      eventType: EVENT.project.roleAdded,
      payload: { roles },
      resourceOwner: project.org_id,
      creator,
    });
    await insertRoles(tx, project.id, roles as NewRole[], event.sequence);
    return createdDetails(event);
  });
}

export async function updateProjectRole(
  db: Db,
  ref: ProjectRef,
  input: { key: string; displayName: string; group: string },
  creator: string,
): Promise<Details> {
  const role = parseInput(roleSchema, input, 'UpdateProjectRoleRequest', 'PROJECT-Inv4l');
  return db.tx(async (tx) => {
    const project = await projectOfRoles(tx, ref);
    const stored = await findRole(tx, project.id, role.key);
    if (!stored) throw roleNotFound('COMMAND-vv8M9');
    if (stored.display_name === role.displayName && stored.role_group === role.group)
      throw failedPrecondition('Project role has not been changed', 'COMMAND-5M0cs');
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: project.id,
      eventType: EVENT.project.roleChanged,
      payload: role,
      resourceOwner: project.org_id,
      creator,
    });
    await updateRole(tx, { projectId: project.id, ...role, sequence: event.sequence, changedAt: event.createdAt });
    return changedDetails(event);
  });
}

export async function removeProjectRole(db: Db, ref: ProjectRef, key: string, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    const project = await lockOrgProject(tx, ref.orgId, ref.projectId);
    if (!(await findRole(tx, project.id, key))) throw roleNotFound('COMMAND-m9vMf');
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: project.id,
      eventType: EVENT.project.roleRemoved,
      payload: { key },
      resourceOwner: project.org_id,
      creator,
    });
    await deleteRole(tx, project.id, key);
    return changedDetails(event);
  });
}

/**
 * Role keys a grant hands out must exist on the project. A missing one is a state precondition, not malformed
 * input: FAILED_PRECONDITION with the caller's ZITADEL ID (AddUserGrant/UpdateUserGrant COMMAND-mm9F4,
 * command/user_grant.go checkUserGrantPreCondition; AddProjectGrant/UpdateProjectGrant COMMAND-6m9gd,
 * command/project_grant.go checkProjectGrantPreCondition), which SDK users branch on.
 */
export async function checkRoleKeys(db: Queryable, projectId: string, keys: string[], id: string): Promise<void> {
  const [missing] = await missingRoleKeys(db, projectId, keys);
  if (missing !== undefined) throw failedPrecondition(`Project role "${missing}" not found on the project`, id);
}

/** ListProjectRoles with keyQuery / displayNameQuery, by the primary key's project prefix. */
export async function listProjectRoles(
  db: Db,
  ref: ProjectRef,
  filters: { key?: TextFilter; displayName?: TextFilter }[],
  page: Page,
): Promise<ListResult<RoleRow>> {
  const project = await getProject(db, ref.orgId, ref.projectId);
  const where = new Conditions().add('r.project_id = ?', project.id);
  for (const f of filters) {
    if (f.key) where.text('r.role_key', f.key);
    if (f.displayName) where.text('r.display_name', f.displayName);
  }
  return listPage<RoleRow>(
    db,
    {
      select: 'r.project_id, r.role_key, r.display_name, r.role_group, r.created_at, r.changed_at, r.sequence',
      from: 'project_roles r',
      where,
      orderBy: ['r.role_key'],
    },
    page,
  );
}
