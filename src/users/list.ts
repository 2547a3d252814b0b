// ListUsers (issue 21): the users of one org, filtered by ZITADEL's user queries and sorted by one of its columns.
// Text filters compare lower(column), which migrations/0080_lifecycle.sql indexes per org for the user name, the
// e-mail and the display name (test/management/list-plans.test.ts holds the plans to index scans).
import type { Db } from '../platform/db.ts';
import {
  Conditions,
  creationOrder,
  listPage,
  type ListResult,
  type Page,
  type TextFilter,
} from '../platform/search.ts';
import { USER_PROFILE_COLUMNS, type UserProfileRow, type UserRow } from './queries.ts';

export type UserTextField = 'userName' | 'firstName' | 'lastName' | 'nickName' | 'displayName' | 'email' | 'loginName';

export type UserFilter =
  | { field: UserTextField; text: TextFilter }
  | { field: 'state'; state: UserRow['state'] }
  | { field: 'type'; type: UserRow['type'] }
  | { field: 'ids'; ids: string[] }
  | { field: 'emails'; emails: string[] };

export type UserSortColumn = keyof typeof SORT_COLUMNS;

const TEXT_COLUMNS: Record<UserTextField, string> = {
  userName: 'u.user_name',
  firstName: 'u.first_name',
  lastName: 'u.last_name',
  nickName: 'u.nick_name',
  displayName: 'u.display_name',
  email: 'u.email',
  loginName: "(u.user_name || '@' || o.primary_domain)",
};

const SORT_COLUMNS = {
  userName: 'lower(u.user_name)',
  firstName: 'u.first_name',
  lastName: 'u.last_name',
  nickName: 'u.nick_name',
  displayName: 'u.display_name',
  email: 'u.email',
  state: 'u.state',
  type: 'u.type',
  creationDate: 'u.id',
};

/** `sortBy`: a column in the page's direction; without one, the users in the order they were created. */
export async function listUsers(
  db: Db,
  orgId: string,
  filters: readonly UserFilter[],
  page: Page,
  sortBy?: UserSortColumn,
): Promise<ListResult<UserProfileRow & { has_secret: boolean }>> {
  const where = new Conditions().add('u.org_id = ?', orgId);
  for (const f of filters) {
    switch (f.field) {
      case 'state':
        where.add('u.state = ?', f.state);
        break;
      case 'type':
        where.add('u.type = ?', f.type);
        break;
      case 'ids':
        where.add('u.id = ANY(?::text[])', f.ids);
        break;
      case 'emails':
        where.add(
          'lower(u.email) = ANY(?::text[])',
          f.emails.map((e) => e.toLowerCase()),
        );
        break;
      default:
        where.text(TEXT_COLUMNS[f.field], f.text);
    }
  }
  return listPage(
    db,
    {
      select: `${USER_PROFILE_COLUMNS}, u.secret_hash IS NOT NULL AS has_secret`,
      from: 'users u JOIN orgs o ON o.id = u.org_id',
      where,
      orderBy: sortBy ? [SORT_COLUMNS[sortBy], 'u.id'] : ['u.id'],
    },
    sortBy ? page : creationOrder(page),
  );
}
