// How fresh a sign-in must be to stand in for proof of a sensitive change (OWASP ASVS 5.0 §7.5.1): the account pages
// take it from a user who has nothing to type, the auth API from a token of that login. An app gets a fresh one by
// asking for max_age or prompt=login (OIDC Core §3.1.2.1); the session's auth_time says when it was.
export const REAUTH_SECONDS = 300;

/** Whether a login that authenticated at `authTime` (seconds since the epoch) is at most REAUTH_SECONDS old; a login
 *  that does not say when it was is not. */
export const signedInWithin = (authTime: number | undefined, now = Date.now() / 1000): boolean =>
  authTime !== undefined && now - authTime <= REAUTH_SECONDS;
