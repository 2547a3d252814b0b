// Resolving what a person types as login name (issue 4 §1, compat.md §5): the user name alone (unique per
// instance) or `username@<domain of the user's organization>`.
import type { Queryable } from '../platform/db.ts';
import { findUserByUserName, type UserRow } from './queries.ts';

export async function findUserByLoginName(db: Queryable, loginName: string): Promise<UserRow | undefined> {
  const byName = await findUserByUserName(db, loginName);
  if (byName) return byName;
  const at = loginName.lastIndexOf('@');
  if (at <= 0 || at === loginName.length - 1) return undefined;
  const user = await findUserByUserName(db, loginName.slice(0, at));
  if (!user) return undefined;
  const { rows } = await db.query<{ ok: boolean }>(
    'SELECT true AS ok FROM org_domains WHERE org_id = $1 AND lower(domain) = lower($2)', [user.org_id, loginName.slice(at + 1)]);
  return rows.length ? user : undefined;
}
