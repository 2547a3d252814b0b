// The accounts signed in on this browser, for the account chooser. oidc-provider's session holds one account,
// so the browser keeps the list in its own cookie: user IDs, encrypted and
// authenticated with the master key (the browser can neither read nor forge it), HttpOnly, SameSite=Lax, Secure
// over https. Choosing an account from it never skips the password unless it is
// the account of the current session. Like ZITADEL's account selection, the list outlives a logout: an account
// whose session ended is offered again, behind its password.
import type { SecretBox } from '../platform/secrets.ts';

export const KNOWN_ACCOUNTS_COOKIE = 'gatehouse_accounts';
const MAX_ACCOUNTS = 5;
// The whole site: the login pages show the list, the authorization endpoint's prompt policy counts it.
const COOKIE_PATH = '/';

export function readKnownAccounts(secrets: SecretBox, value: string | undefined): string[] {
  if (!value || value.length > 4096) return [];
  try {
    const ids = JSON.parse(secrets.decrypt(value)) as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string').slice(0, MAX_ACCOUNTS) : [];
  } catch {
    return [];
  }
}

/** The cookie value with the account first (most recent first, at most five). */
export function withKnownAccount(secrets: SecretBox, known: readonly string[], userId: string): string {
  return secrets.encrypt(JSON.stringify([userId, ...known.filter((id) => id !== userId)].slice(0, MAX_ACCOUNTS)));
}

export function knownAccountsCookieOptions(secure: boolean, maxAgeSeconds: number) {
  return { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' as const, secure, maxAge: maxAgeSeconds };
}
