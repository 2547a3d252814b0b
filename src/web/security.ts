// Protections of every page: security headers against framing and sniffing, CSRF checks on posts (bound to the
// interaction here; the pages of no interaction use cookie-csrf.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { SecretBox } from '../platform/secrets.ts';

/** Sent with every HTML page, against framing, sniffing and leaks. No scripts at all; styles and images only from
 *  Gatehouse itself. `form-action` is deliberately absent: Chromium applies it to the redirects after a form POST,
 *  and the login POST ends in a redirect to the application's registered callback. */
export const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});

/** The passkey pages' policy: WebAuthn needs a script, so those pages alone may load Gatehouse's own
 *  (views/static/passkey.js); still no inline code. */
export const SCRIPT_PAGE_CSP = `${HTML_SECURITY_HEADERS['content-security-policy']}; script-src 'self'`;

const CSRF_PURPOSE = 'login-csrf:';

/** The CSRF token of an interaction: a keyed hash of its ID, so it needs no storage and is useless for any other
 *  interaction; only a page rendered for the holder of the interaction cookie shows it. */
export function csrfToken(secrets: SecretBox, interactionId: string): string {
  return secrets.hashSecret(CSRF_PURPOSE + interactionId);
}

export function validCsrfToken(secrets: SecretBox, interactionId: string, presented: unknown): boolean {
  return (
    typeof presented === 'string' &&
    presented.length > 0 &&
    secrets.verifySecret(CSRF_PURPOSE + interactionId, presented)
  );
}

/** Whether a form POST comes from our own pages, not a cross-site one. Browsers send `Origin`; with
 *  `Referrer-Policy: no-referrer` Chromium sends `Origin: null` on same-origin posts, which is accepted only together
 *  with `Sec-Fetch-Site: same-origin`. A client that sends neither header is left to the CSRF token. */
export function sameOriginPost(headers: IncomingHttpHeaders, issuerOrigin: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (origin === 'null') return site === 'same-origin';
  return origin === issuerOrigin;
}
