// Users' whole life on zitadel.management.v1.ManagementService: list, look up, add, change, lock,
// deactivate, remove; machine users' keys and secret. All within the org in context (ids of other orgs: 404).
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { KeyType } from '@zitadel/proto/zitadel/auth_n_key_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { GenderSchema, Type, UserFieldName, UserState, type SearchQuery } from '@zitadel/proto/zitadel/user_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { IAM_OWNER, ORG_OWNER } from '../../members/roles.ts';
import { invalidArgument } from '../../platform/errors.ts';
import type { ListResult } from '../../platform/search.ts';
import { ADD_REQUEST, importHumanUser } from '../../passwords/new-human.ts';
import { listUsers, type UserFilter, type UserSortColumn } from '../../users/list.ts';
import { findUserByLoginName, type UserRow } from '../../users/lookup.ts';
import { listMachineUserKeys, removeMachineSecret, removeMachineUserKey } from '../../users/machine-service.ts';
import { isUserUnique, type Gender } from '../../users/queries.ts';
import { removeUser } from '../../members/remove-user.ts';
import { userNotFound, type UserRef } from '../../users/service.ts';
import { changeUserState, type UserStateChange } from '../../users/state.ts';
import { updateHumanPhone, updateHumanProfile, updateMachine, updateUserName } from '../../users/update.ts';
import { TOKEN_TYPES } from '../app-messages.ts';
import { detailsMessage, enumName, humanInput, storedDetails, userMessage } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { callerHash, operation, orgOwner, projectPermission, type Caller, type Operation } from '../operation.ts';

const M = ManagementService.method;

const userRef = (caller: Caller, userId: string): UserRef => ({ orgId: caller.orgId, userId });

const SORT_COLUMNS: Partial<Record<UserFieldName, UserSortColumn>> = {
  [UserFieldName.USER_NAME]: 'userName',
  [UserFieldName.FIRST_NAME]: 'firstName',
  [UserFieldName.LAST_NAME]: 'lastName',
  [UserFieldName.NICK_NAME]: 'nickName',
  [UserFieldName.DISPLAY_NAME]: 'displayName',
  [UserFieldName.EMAIL]: 'email',
  [UserFieldName.STATE]: 'state',
  [UserFieldName.TYPE]: 'type',
  [UserFieldName.CREATION_DATE]: 'creationDate',
};

const STATES: Partial<Record<UserState, UserRow['state']>> = {
  [UserState.ACTIVE]: 'active',
  [UserState.INACTIVE]: 'inactive',
  [UserState.LOCKED]: 'locked',
};

/** How deep or/and/not queries may nest: enough for any search form, and a bound on the work of one request. */
const MAX_NESTING = 5;

/** ZITADEL's user queries as filters, the or/and/not queries with theirs (`field` names the query in errors). */
function userFilter(query: SearchQuery, field: string, depth = 0): UserFilter {
  const q = query.query;
  const nested = (queries: SearchQuery[], name: string) => {
    if (depth >= MAX_NESTING)
      throw invalidArgument(`invalid ${field}.${name}: queries nest at most ${MAX_NESTING} deep`);
    return queries.map((sub, i) => userFilter(sub, `${field}.${name}.Queries[${i}]`, depth + 1));
  };
  switch (q.case) {
    case 'orQuery':
      return { field: 'or', filters: nested(q.value.queries, 'OrQuery') };
    case 'andQuery':
      return { field: 'and', filters: nested(q.value.queries, 'AndQuery') };
    case 'notQuery': {
      if (!q.value.query) throw invalidArgument(`invalid ${field}.NotQuery.Query: value is required`);
      return { field: 'not', filter: nested([q.value.query], 'NotQuery')[0]! };
    }
    case 'userNameQuery':
      return { field: 'userName', text: textFilter(q.value.userName, q.value.method) };
    case 'firstNameQuery':
      return { field: 'firstName', text: textFilter(q.value.firstName, q.value.method) };
    case 'lastNameQuery':
      return { field: 'lastName', text: textFilter(q.value.lastName, q.value.method) };
    case 'nickNameQuery':
      return { field: 'nickName', text: textFilter(q.value.nickName, q.value.method) };
    case 'displayNameQuery':
      return { field: 'displayName', text: textFilter(q.value.displayName, q.value.method) };
    case 'emailQuery':
      return { field: 'email', text: textFilter(q.value.emailAddress, q.value.method) };
    case 'loginNameQuery':
      return { field: 'loginName', text: textFilter(q.value.loginName, q.value.method) };
    case 'stateQuery': {
      // no user is ever in another state (a removed user is gone): such a query matches nobody
      const state = STATES[q.value.state];
      return state ? { field: 'state', state } : { field: 'ids', ids: [] };
    }
    case 'typeQuery':
      if (q.value.type === Type.UNSPECIFIED) throw invalidArgument(`invalid ${field}.TypeQuery.Type: unspecified`);
      return { field: 'type', type: q.value.type === Type.HUMAN ? 'human' : 'machine' };
    case 'inUserIdsQuery':
      return { field: 'ids', ids: q.value.userIds };
    case 'inUserEmailsQuery':
      return { field: 'emails', emails: q.value.userEmails };
    default:
      throw invalidArgument(`invalid ${field}: ${q.case ?? 'an empty query'} is not supported by Gatehouse`);
  }
}

/** zitadel.authn.v1.Key of ListMachineKeys and ListAppKeys: JSON key files, without their private part. */
export const keyMessages = (result: ListResult<{ id: string; expires_at: Date; created_at: Date }>, owner: string) =>
  result.rows.map((k) => ({
    id: k.id,
    details: storedDetails({ sequence: '0', created_at: k.created_at, changed_at: k.created_at }, owner),
    type: KeyType.JSON,
    expirationDate: timestampFromDate(k.expires_at),
  }));

export function userOperations({ db, hashing }: ManagementDeps): Operation[] {
  // The three methods share one request and one response shape ({id} and {details}).
  const state = (method: (typeof M)['lockUser' | 'unlockUser' | 'reactivateUser'], change: UserStateChange) =>
    operation({
      method: method as (typeof M)['lockUser'],
      permission: orgOwner,
      async handle(caller, req) {
        const details = await changeUserState(db, userRef(caller, req.id), change, caller.principal.userId);
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
        const profile = {
          firstName: req.firstName,
          lastName: req.lastName,
          nickName: req.nickName,
          displayName: req.displayName,
          preferredLanguage: req.preferredLanguage,
          gender: enumName<Gender>(GenderSchema, req.gender),
        };
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await updateHumanProfile(db, ref, profile, caller.principal.userId)) };
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
      method: M.updateMachine,
      permission: orgOwner,
      async handle(caller, req) {
        const input = {
          name: req.name,
          description: req.description,
          accessTokenType: TOKEN_TYPES[req.accessTokenType]!,
        };
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await updateMachine(db, ref, input, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.listMachineKeys,
      permission: orgOwner,
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListMachineKeysRequest');
        const result = await listMachineUserKeys(db, userRef(caller, req.userId), page);
        return { details: listDetailsMessage(result), result: keyMessages(result, caller.orgId) };
      },
    }),
    operation({
      method: M.removeMachineKey,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await removeMachineUserKey(db, ref, req.keyId, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.removeMachineSecret,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await removeMachineSecret(db, ref, caller.principal.userId)) };
      },
    }),
  ];
}
