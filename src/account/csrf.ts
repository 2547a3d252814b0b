// CSRF protection of the account pages (security.md §13), which belong to no interaction: a random value in an
// HttpOnly cookie scoped to the pages, and in each form a keyed hash of it, so a page rendered for this browser is
// the only source of a token the next POST accepts; plus the Origin / Sec-Fetch-Site check of the login pages.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecretBox } from '../platform/secrets.ts';
import { ForbiddenPost, formField } from '../login/interaction.ts';
import { sameOriginPost } from '../login/security.ts';
import { ACCOUNT_PATH } from './urls.ts';

const COOKIE = 'gatehouse_account_csrf';
const PURPOSE = 'account-csrf:';

/** The form token for this browser, setting its cookie when it has none (or a malformed one). */
export function accountCsrf(secrets: SecretBox, request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  let value = request.cookies[COOKIE];
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
    value = randomBytes(32).toString('base64url');
    reply.setCookie(COOKIE, value, { path: ACCOUNT_PATH, httpOnly: true, sameSite: 'lax', secure });
  }
  return secrets.hashSecret(PURPOSE + value);
}

/** Throws ForbiddenPost (answered 403 by the pages' error handler) unless the POST is ours. */
export function checkAccountPost(secrets: SecretBox, request: FastifyRequest, issuer: string): void {
  if (!sameOriginPost(request.headers, new URL(issuer).origin)) throw new ForbiddenPost('cross-origin form post');
  const value = request.cookies[COOKIE];
  const token = formField(request, 'csrf');
  if (!value || !token || !secrets.verifySecret(PURPOSE + value, token))
    throw new ForbiddenPost('missing or wrong CSRF token');
}
