// How a signed-in account is shown on the login pages (the account chooser and the logout page).
import type { Queryable } from '../platform/db.ts';
import { findUserById, type UserRow } from './queries.ts';
import { isActive, loginName } from './lookup.ts';

export interface AccountSummary {
  id: string;
  loginName: string;
  displayName: string;
}

/** Active humans among the IDs, in the given order; unknown or deactivated IDs are left out. */
export async function describeAccounts(db: Queryable, ids: readonly string[]): Promise<AccountSummary[]> {
  const users = await Promise.all(ids.map((id) => findUserById(db, id)));
  return users
    .filter((u): u is UserRow => u !== undefined && u.type === 'human' && isActive(u))
    .map((u) => ({ id: u.id, loginName: loginName(u), displayName: u.display_name ?? u.user_name }));
}
