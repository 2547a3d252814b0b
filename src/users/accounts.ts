// How a signed-in account is shown on the login pages (the account chooser and the logout page).
import type { Queryable } from '../platform/db.ts';
import { findUserById, type UserRow } from './queries.ts';

export interface AccountSummary { id: string; loginName: string; displayName: string }

/** The login name as ZITADEL builds it: user name @ primary domain of the user's organization (compat.md §5). */
export function loginNameOf(user: Pick<UserRow, 'user_name' | 'primary_domain'>): string {
  return `${user.user_name}@${user.primary_domain}`;
}

/** Active humans among the IDs, in the given order; unknown or deactivated IDs are left out. */
export async function describeAccounts(db: Queryable, ids: readonly string[]): Promise<AccountSummary[]> {
  const users = await Promise.all(ids.map((id) => findUserById(db, id)));
  return users
    .filter((u): u is UserRow => u !== undefined && u.type === 'human' && u.state === 'active')
    .map((u) => ({ id: u.id, loginName: loginNameOf(u), displayName: u.display_name ?? u.user_name }));
}
