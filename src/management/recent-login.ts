// The auth API's changes of a sensitive attribute of the caller's own account (OWASP ASVS 5.0
// §7.5.1): its e-mail address, its authenticator app, its passkeys. A valid token is not enough: whoever sits at an
// unlocked browser can run an authorization for an app of theirs, be signed in silently by the single sign-on
// session, and hold a token of the user's. So these methods ask for a token whose login is recent, as the account
// pages ask for the password or a fresh sign-in; the app gets one by signing the user in again (max_age or
// prompt=login). UpdateMyPassword asks for the old password instead. Machine users come from no login and have
// none of these attributes; the management API's changes of other users are the admins' and ask no proof, as in
// ZITADEL.
import { REAUTH_SECONDS, signedInWithin } from '../oidc/recent-sign-in.ts';
import { failedPrecondition } from '../platform/errors.ts';
import type { Caller } from './operation.ts';

/** Throws FAILED_PRECONDITION unless the caller's token comes from a login at most REAUTH_SECONDS old; a user's
 *  token that does not say when its login was is refused too. */
export function requireRecentLogin(caller: Caller, now = Date.now() / 1000): void {
  const { machine, authTime } = caller.principal;
  if (machine || signedInWithin(authTime, now)) return;
  throw failedPrecondition(
    `This change needs a sign-in from the last ${REAUTH_SECONDS / 60} minutes: ` +
      `sign the user in again (max_age=${REAUTH_SECONDS} or prompt=login) and call with the new token`,
    'AUTH-reauth1',
  );
}
