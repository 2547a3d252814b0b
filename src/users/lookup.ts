// Reads of users for other domains (OIDC accounts, login): the user with its login name and organization.
import type { Queryable } from '../platform/db.ts';
import { findUserById, type UserProfileRow, type UserRow } from './queries.ts';

export type { UserProfileRow, UserRow };

/** Login names are user_name@primary_domain, as in ZITADEL. */
export const loginName = (user: UserProfileRow) => `${user.user_name}@${user.primary_domain}`;

/** Whether a user may sign in and its tokens hold: it is active, and so is its org (DeactivateOrg). */
export const isActive = (user: Pick<UserProfileRow, 'state' | 'org_state'>) =>
  user.state === 'active' && user.org_state === 'active';

export async function findActiveUser(db: Queryable, id: string): Promise<UserRow | undefined> {
  const user = await findUserById(db, id);
  return user && isActive(user) ? user : undefined;
}

/** By login name (`user name@org domain`) or user name, never ambiguously. */
export { findUserByLoginName } from './queries.ts';
