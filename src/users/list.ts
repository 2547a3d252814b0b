// ListUsers: the users of one org, filtered by ZITADEL's user queries (their or/and/not too) and sorted by
// one of its columns. Text filters compare lower(column), which migrations/0080_lifecycle.sql indexes per org for the
// user name, the e-mail and the display name; an OR of them (a search box, the console's users page) is a BitmapOr of
// those indexes (test/management/list-plans.test.ts holds the plans to index scans).
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
  | { field: 'emails'; emails: string[] }
  /** ZITADEL's OrQuery and AndQuery (none given: nobody, everybody), and NotQuery. */
  | { field: 'or' | 'and'; filters: UserFilter[] }
  | { field: 'not'; filter: UserFilter };

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
  for (const f of filters) where.add(condition(where, f));
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

/** The SQL of one filter, its values taken as parameters of `where`. */
function condition(where: Conditions, f: UserFilter): string {
  switch (f.field) {
    case 'state':
      return `u.state = ${where.param(f.state)}`;
    case 'type':
      return `u.type = ${where.param(f.type)}`;
    case 'ids':
      return `u.id = ANY(${where.param(f.ids)}::text[])`;
    case 'emails':
      return `lower(u.email) = ANY(${where.param(f.emails.map((e) => e.toLowerCase()))}::text[])`;
    case 'or':
    case 'and': {
      const parts = f.filters.map((sub) => condition(where, sub));
      return parts.length ? `(${parts.join(` ${f.field.toUpperCase()} `)})` : f.field === 'or' ? 'false' : 'true';
    }
    case 'not':
      return `NOT (${condition(where, f.filter)})`;
    default:
      return where.match(TEXT_COLUMNS[f.field], f.text);
  }
}
