// User grants: the roles a user holds on a project, held by the project's org. Role keys must exist on the project
// (FAILED_PRECONDITION, 400 on REST); one active grant of a project per user (409); every change is one transaction
// with its event. Token claims read them at request time (oidc/role-claims.ts).
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { failedPrecondition, notFound, precondition } from '../platform/errors.ts';
import { receivedProjectGrant, type ProjectGrantRow } from './project-grants.ts';
import { parseInput } from '../platform/input.ts';
import { newId } from '../platform/ids.ts';
import { getProject } from '../projects/service.ts';
import { checkRoleKeys } from '../projects/roles.ts';
import { getUserById } from '../users/service.ts';
import {
  deleteGrants,
  findGrant,
  findGrantedRoles,
  insertGrant,
  lockOrgGrants,
  updateGrant,
  type GrantedRoles,
  type UserGrantRow,
} from './queries.ts';

export type { GrantedRoles, UserGrantRow };

/** `id`: ZITADEL's ID of the command or query that did not find it (command/user_grant.go: ChangeUserGrant and
 *  DeactivateUserGrant COMMAND-3M9sd, ReactivateUserGrant COMMAND-Lp0gs, removeUserGrant COMMAND-1My0t). */
export const grantNotFound = (id: string) => notFound('User grant not found', id);
// GetUserGrantByID's (query/user_grant.go) and removeUserGrant's (command/user_grant.go).
const GET_NOT_FOUND = 'QUERY-wIPkA';
const REMOVE_NOT_FOUND = 'COMMAND-1My0t';
// checkUserGrantPreCondition's, for a role key the project does not have or the project grant does not lend.
const ROLE_NOT_FOUND = 'COMMAND-mm9F4';

const roleKeys = z.array(z.string().min(1, 'value length must be at least 1 runes').max(200)).max(1000);

/** A grant as the management API names it: by the org in context, the user and the grant ID. */
export interface GrantRef {
  orgId: string;
  userId: string;
  grantId: string;
}

/** Role keys a grant hands out: the project's own, or under a project grant only the lent ones. Either
 *  way a missing one is ZITADEL's FAILED_PRECONDITION COMMAND-mm9F4 (command/user_grant.go
 *  checkUserGrantPreCondition), which SDK users branch on. */
async function checkGrantable(
  tx: Queryable,
  projectId: string,
  projectGrant: ProjectGrantRow | undefined,
  keys: string[],
): Promise<void> {
  if (!projectGrant) return checkRoleKeys(tx, projectId, keys, ROLE_NOT_FOUND);
  const missing = keys.find((k) => !projectGrant.role_keys.includes(k));
  if (missing !== undefined)
    throw failedPrecondition(`Project role "${missing}" is not granted to the organisation`, ROLE_NOT_FOUND);
}

/** `projectGrantId`: a grant of a project lent to the org in context; without it the project is the org's own. */
export async function addUserGrant(
  db: Db,
  input: { orgId: string; userId: string; projectId: string; projectGrantId?: string; roleKeys: string[] },
  creator: string,
): Promise<{ grantId: string; details: Details }> {
  const keys = [...new Set(parseInput(roleKeys, input.roleKeys, 'AddUserGrantRequest', 'USER-4m9fS'))];
  const grantId = newId();
  // ZITADEL's preconditions (command/user_grant.go searchUserGrantPreConditionState, checkUserExists): the user,
  // the project and the project grant named must exist, else FAILED_PRECONDITION with each one's ID.
  return db.tx(async (tx) => {
    const projectGrant = input.projectGrantId
      ? await precondition(
          receivedProjectGrant(tx, input.orgId, input.projectGrantId, input.projectId),
          'Project grant not found',
          'COMMAND-huvKF',
        )
      : undefined;
    const project = projectGrant
      ? { id: projectGrant.project_id }
      : await precondition(getProject(tx, input.orgId, input.projectId), 'Project not found', 'COMMAND-m9gsd');
    await precondition(getUserById(tx, input.userId), 'User could not be found', 'COMMAND-uXHNj');
    await checkGrantable(tx, project.id, projectGrant, keys);
    const event = await appendEvent(tx, {
      aggregateType: 'usergrant',
      aggregateId: grantId,
      eventType: EVENT.usergrant.added,
      payload: { userId: input.userId, projectId: project.id, projectGrantId: projectGrant?.id, roleKeys: keys },
      resourceOwner: input.orgId,
      creator,
    });
    await insertGrant(tx, {
      id: grantId,
      userId: input.userId,
      projectId: project.id,
      orgId: input.orgId,
      projectGrantId: projectGrant?.id ?? null,
      roleKeys: keys,
      sequence: event.sequence,
    });
    return { grantId, details: createdDetails(event) };
  });
}

/** The grant, which must be held by the org in context and belong to the user named: any other is not found. */
export async function getUserGrant(
  db: Queryable,
  ref: GrantRef,
  lock = false,
  notFoundId = GET_NOT_FOUND,
): Promise<UserGrantRow> {
  const grant = await findGrant(db, ref.grantId, lock);
  if (grant?.org_id !== ref.orgId || grant.user_id !== ref.userId) throw grantNotFound(notFoundId);
  return grant;
}

export async function updateUserGrant(db: Db, ref: GrantRef, input: { roleKeys: string[] }, creator: string) {
  const keys = [...new Set(parseInput(roleKeys, input.roleKeys, 'UpdateUserGrantRequest', 'USER-4m9fS'))];
  return changeGrant(db, ref, creator, 'COMMAND-3M9sd', async (grant, tx) => {
    const same = keys.length === grant.role_keys.length && keys.every((k) => grant.role_keys.includes(k));
    if (same) throw failedPrecondition('User grant has not been changed', 'COMMAND-Rs8fy');
    const projectGrant = grant.project_grant_id ? await findReceived(tx, grant) : undefined;
    await checkGrantable(tx, grant.project_id, projectGrant, keys);
    return { eventType: EVENT.usergrant.changed, roleKeys: keys, state: grant.state };
  });
}

export async function setUserGrantState(db: Db, ref: GrantRef, state: 'active' | 'inactive', creator: string) {
  const notFoundId = state === 'inactive' ? 'COMMAND-3M9sd' : 'COMMAND-Lp0gs';
  return changeGrant(db, ref, creator, notFoundId, async (grant) => {
    if (grant.state === state)
      throw state === 'inactive'
        ? failedPrecondition('User grant is not active', 'COMMAND-1S9gx')
        : failedPrecondition('User grant is not inactive', 'COMMAND-1ML0v');
    const eventType = state === 'inactive' ? EVENT.usergrant.deactivated : EVENT.usergrant.reactivated;
    return { eventType, roleKeys: grant.role_keys, state };
  });
}

const findReceived = (tx: Queryable, grant: UserGrantRow) =>
  receivedProjectGrant(tx, grant.org_id, grant.project_grant_id!);

type GrantChange = { eventType: EventType<'usergrant'>; roleKeys: string[]; state: 'active' | 'inactive' };

async function changeGrant(
  db: Db,
  ref: GrantRef,
  creator: string,
  notFoundId: string,
  decide: (grant: UserGrantRow, tx: Queryable) => Promise<GrantChange>,
): Promise<Details> {
  return db.tx(async (tx) => {
    const grant = await getUserGrant(tx, ref, true, notFoundId);
    const change = await decide(grant, tx);
    const event = await appendEvent(tx, {
      aggregateType: 'usergrant',
      aggregateId: grant.id,
      eventType: change.eventType,
      payload: { roleKeys: change.roleKeys },
      resourceOwner: grant.org_id,
      creator,
    });
    await updateGrant(tx, grant.id, { ...change, sequence: event.sequence, changedAt: event.createdAt });
    return changedDetails(event);
  });
}

/** RemoveUserGrant and BulkRemoveUserGrant: every grant named must be held by the org in context, else nothing is
 *  removed (404). */
export async function removeUserGrants(
  db: Db,
  ref: { orgId: string; userId?: string },
  grantIds: string[],
  creator: string,
): Promise<Details | undefined> {
  const ids = [...new Set(grantIds)];
  return db.tx(async (tx) => {
    if (ref.userId !== undefined)
      await getUserGrant(tx, { orgId: ref.orgId, userId: ref.userId, grantId: ids[0]! }, false, REMOVE_NOT_FOUND);
    const held = await lockOrgGrants(tx, ref.orgId, ids);
    if (held.length !== ids.length) throw grantNotFound(REMOVE_NOT_FOUND);
    let last: Details | undefined;
    for (const id of ids) {
      const event = await appendEvent(tx, {
        aggregateType: 'usergrant',
        aggregateId: id,
        eventType: EVENT.usergrant.removed,
        resourceOwner: ref.orgId,
        creator,
      });
      last = changedDetails(event);
    }
    await deleteGrants(tx, ids);
    return last;
  });
}

/** The roles of the user's active grants on the projects given (token claims, sign-in checks). */
export function grantedRoles(db: Queryable, userId: string, projectIds: string[]): Promise<GrantedRoles[]> {
  return findGrantedRoles(db, userId, projectIds);
}
