// CSRF protection of the account pages, which belong to no interaction (web/cookie-csrf.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecretBox } from '../platform/secrets.ts';
import { cookieCsrf } from '../web/cookie-csrf.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';

const csrf = (secrets: SecretBox) => cookieCsrf(secrets, 'gatehouse_account_csrf', ACCOUNT_PATH);

export function accountCsrf(secrets: SecretBox, request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  return csrf(secrets).token(request, reply, secure);
}

export function checkAccountPost(secrets: SecretBox, request: FastifyRequest, issuer: string): void {
  csrf(secrets).check(request, issuer);
}
