// Reads of users for other domains (OIDC accounts, login): the user with its login name and organization.
import type { Queryable } from '../platform/db.ts';
import { findUserById, findUserByUserName, type UserProfileRow, type UserRow } from './queries.ts';

export type { UserProfileRow, UserRow };

/** Login names are user_name@primary_domain (compat.md §5). */
export const loginName = (user: UserProfileRow) => `${user.user_name}@${user.primary_domain}`;

export async function findActiveUser(db: Queryable, id: string): Promise<UserRow | undefined> {
  const user = await findUserById(db, id);
  return user?.state === 'active' ? user : undefined;
}

/** By user name, or by full login name (user@domain) when the domain is the user's org's primary domain. */
export async function findUserByLoginName(db: Queryable, name: string): Promise<UserRow | undefined> {
  const direct = await findUserByUserName(db, name);
  if (direct) return direct;
  const at = name.lastIndexOf('@');
  if (at <= 0) return undefined;
  const user = await findUserByUserName(db, name.slice(0, at));
  return user && user.primary_domain.toLowerCase() === name.slice(at + 1).toLowerCase() ? user : undefined;
}
