// ListUsers' search (zitadel.user.v1.SearchQuery and UserFieldName) as the users domain's filters and sort columns.
import { Type, UserFieldName, UserState, type SearchQuery } from '@zitadel/proto/zitadel/user_pb.js';
import { invalidArgument } from '../../platform/errors.ts';
import type { UserFilter, UserSortColumn } from '../../users/list.ts';
import type { UserRow } from '../../users/lookup.ts';
import { textFilter } from '../list-query.ts';

export const SORT_COLUMNS: Partial<Record<UserFieldName, UserSortColumn>> = {
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
export function userFilter(query: SearchQuery, field: string, depth = 0): UserFilter {
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
