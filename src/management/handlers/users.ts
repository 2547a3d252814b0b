// Users' whole life on zitadel.management.v1.ManagementService: list, look up, add, import, change,
// lock, deactivate, remove; and on zitadel.auth.v1.AuthService the caller's own user and profile. The org's users
// are those of the org in context (ids of other orgs: 404). Machine users' keys and secret: machine-users.ts.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { IAM_OWNER, ORG_OWNER } from '../../members/roles.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { clearUserCounters, findAccountLocks, type AccountLock } from '../../lockout/queries.ts';
import { findUserSessions, type UserSession } from '../../users/artifact-queries.ts';
import { ADD_REQUEST, importHumanUser } from '../../passwords/new-human.ts';
import { listUsers } from '../../users/list.ts';
import { findUserByLoginName } from '../../users/lookup.ts';
import { isUserUnique } from '../../users/queries.ts';
import { removeUser } from '../../members/remove-user.ts';
import { getUserById, orgUserGetter, updateMyProfile, userNotFound, type UserRef } from '../../users/service.ts';
import { changeUserState, type UserStateChange } from '../../users/state.ts';
import { updateHumanPhone, updateHumanProfile, updateUserName } from '../../users/update.ts';
import { detailsMessage, humanInput, profileInput, userMessage } from '../convert.ts';
import { listDetailsMessage, pageOf } from '../list-query.ts';
import {
  authenticated,
  callerHash,
  operation,
  orgOwner,
  projectPermission,
  type Caller,
  type Operation,
  type Read,
} from '../operation.ts';
import { SORT_COLUMNS, userFilter } from './user-filter.ts';

const M = ManagementService.method;

/** The user a request names, in the org in context: the services answer one of another org as not found. */
export const userRef = (caller: Caller, userId: string): UserRef => ({ orgId: caller.orgId, userId });

/** A request member of ZITADEL's that Gatehouse does not implement: refused rather than ignored. */
export const unsupported = (field: string) =>
  invalidArgument(`invalid ${field}: not supported by Gatehouse`, 'API-N0tSup');

/** The sign-in sessions of a user of the org in context (the console's user page; none for another org's). */
export const userSessionsRead = ({ db }: ManagementDeps): Read<{ userId: string }, UserSession[]> => ({
  permission: orgOwner,
  handle: (caller, req) => findUserSessions(db, caller.orgId, req.userId),
});

/** The running sign-in lockouts of users of the org in context (the console's user list and page): ZITADEL shows
 *  such a user as locked, Gatehouse's lock is the lockout counter's (lockout/queries.ts), which no v1 read serves. */
export const userLocksRead = ({ db }: ManagementDeps): Read<{ userIds: readonly string[] }, AccountLock[]> => ({
  permission: orgOwner,
  handle: (caller, req) => findAccountLocks(db, caller.orgId, req.userIds),
});

export function userOperations({ db, hashing }: ManagementDeps): Operation[] {
  const getOrgUserById = orgUserGetter(db);
  // The four methods share one request and one response shape ({id} and {details}).
  const state = (
    method: (typeof M)['lockUser' | 'unlockUser' | 'deactivateUser' | 'reactivateUser'],
    change: UserStateChange,
  ) =>
    operation({
      method: method as (typeof M)['lockUser'],
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.id);
        const release = change === 'unlock' ? clearUserCounters : undefined;
        const details = await changeUserState(db, ref, change, caller.principal.userId, release);
        return { details: detailsMessage(details) };
      },
    });
  return [
    operation({
      method: M.listUsers,
      // ZITADEL's PROJECT_OWNER(_VIEWER) holds user.read: a project member finds the org's users it grants roles to
      permission: projectPermission('read'),
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListUsersRequest');
        const result = await listUsers(
          db,
          caller.orgId,
          req.queries.map((q, i) => userFilter(q, `ListUsersRequest.Queries[${i}]`)),
          page,
          SORT_COLUMNS[req.sortingColumn],
        );
        return {
          details: listDetailsMessage(result),
          sortingColumn: req.sortingColumn,
          result: result.rows.map(userMessage),
        };
      },
    }),
    operation({
      method: M.getUserByID,
      // ZITADEL's PROJECT_OWNER(_VIEWER) holds user.read (cmd/defaults.yaml), as for ListUsers
      permission: projectPermission('read'),
      async handle(caller, req) {
        return { user: userMessage(await getOrgUserById(userRef(caller, req.id))) };
      },
    }),
    operation({
      method: M.getUserByLoginNameGlobal,
      permission: orgOwner,
      async handle(caller, req) {
        // Global for IAM_OWNER; an org's owner finds only users of orgs it owns (others are 404, so login names
        // of other tenants cannot be probed).
        const user = await findUserByLoginName(db, req.loginName);
        const { roles } = caller.principal;
        if (!user || !(roles.instance.has(IAM_OWNER) || roles.orgs.get(user.org_id)?.has(ORG_OWNER)))
          throw userNotFound();
        return { user: userMessage(user) };
      },
    }),
    operation({
      method: M.isUserUnique,
      permission: orgOwner,
      async handle(caller, req) {
        return { isUnique: await isUserUnique(db, caller.orgId, req.userName, req.email) };
      },
    }),
    operation({
      method: M.importHumanUser,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.hashedPassword?.value) throw unsupported('ImportHumanUserRequest.HashedPassword');
        if (req.requestPasswordlessRegistration)
          throw unsupported('ImportHumanUserRequest.RequestPasswordlessRegistration');
        if (req.otpCode) throw unsupported('ImportHumanUserRequest.OtpCode');
        if (req.idps.length) throw unsupported('ImportHumanUserRequest.Idps');
        const { userId, details } = await importHumanUser(
          db,
          { orgId: caller.orgId, ...humanInput(req), passwordChangeRequired: req.passwordChangeRequired },
          caller.principal.userId,
          callerHash(hashing, caller),
        );
        return { userId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.addHumanUser,
      permission: orgOwner,
      async handle(caller, req) {
        const { userId, details } = await importHumanUser(
          db,
          { orgId: caller.orgId, ...humanInput({ ...req, password: req.initialPassword }) },
          caller.principal.userId,
          callerHash(hashing, caller),
          ADD_REQUEST,
        );
        return { userId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.updateUserName,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await updateUserName(db, ref, req.userName, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.updateHumanProfile,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        const details = await updateHumanProfile(db, ref, profileInput(req), caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.updateHumanPhone,
      permission: orgOwner,
      async handle(caller, req) {
        const input = { phone: req.phone, verified: req.isPhoneVerified };
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await updateHumanPhone(db, ref, input, caller.principal.userId)) };
      },
    }),
    state(M.deactivateUser, 'deactivate'),
    state(M.reactivateUser, 'reactivate'),
    state(M.lockUser, 'lock'),
    state(M.unlockUser, 'unlock'),
    operation({
      method: M.removeUser,
      permission: orgOwner,
      async handle(caller, req) {
        return { details: detailsMessage(await removeUser(db, userRef(caller, req.id), caller.principal.userId)) };
      },
    }),
    operation({
      method: AuthService.method.getMyUser,
      permission: authenticated,
      async handle(caller) {
        return { user: userMessage(await getUserById(db, caller.principal.userId)) };
      },
    }),
    operation({
      method: AuthService.method.updateMyProfile,
      permission: authenticated,
      async handle(caller, req) {
        return { details: detailsMessage(await updateMyProfile(db, caller.principal.userId, profileInput(req))) };
      },
    }),
  ];
}
