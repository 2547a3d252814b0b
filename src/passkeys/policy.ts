// Whether passkeys alone may sign users in: the login policy's passwordlessType (ZITADEL's
// PASSWORDLESS_TYPE_ALLOWED / _NOT_ALLOWED, issue 17).
import type { Queryable } from '../platform/db.ts';

/** The login policy is being built by issue 17's other half; until it is merged, passwordless is allowed.
 *  TODO(issue 17, login policy): read passwordlessType here. */
export async function passwordlessAllowed(_db: Queryable): Promise<boolean> {
  return true;
}
