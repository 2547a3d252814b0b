// CSRF protection of pages that belong to no interaction (the account pages, the console): a
// random value in an HttpOnly cookie scoped to the pages, and in each form a keyed hash of it, so a page rendered
// for this browser is the only source of a token the next POST accepts; plus the Origin / Sec-Fetch-Site check of
// the login pages.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecretBox } from '../platform/secrets.ts';
import { ForbiddenPost, formField } from './forms.ts';
import { sameOriginPost } from './security.ts';

export interface CookieCsrf {
  /** The form token for this browser, setting its cookie when it has none (or a malformed one). */
  token(request: FastifyRequest, reply: FastifyReply, secure: boolean): string;
  /** Throws ForbiddenPost (answered 403 by the pages' error handler) unless the POST is ours. */
  check(request: FastifyRequest, issuer: string): void;
}

export function cookieCsrf(secrets: SecretBox, cookie: string, path: string): CookieCsrf {
  const purpose = `${cookie}:`;
  return {
    token(request, reply, secure) {
      let value = request.cookies[cookie];
      if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
        value = randomBytes(32).toString('base64url');
        reply.setCookie(cookie, value, { path, httpOnly: true, sameSite: 'lax', secure });
      }
      return secrets.hashSecret(purpose + value);
    },
    check(request, issuer) {
      if (!sameOriginPost(request.headers, new URL(issuer).origin)) throw new ForbiddenPost('cross-origin form post');
      const value = request.cookies[cookie];
      const token = formField(request, 'csrf');
      if (!value || !token || !secrets.verifySecret(purpose + value, token))
        throw new ForbiddenPost('missing or wrong CSRF token');
    },
  };
}
