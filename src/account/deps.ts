// What the account pages take: what every page family does (pages, provider, hashing queue, mailer) and their
// own limit on reset requests per client address.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageDeps } from '../web/page-deps.ts';
import type { Locale } from '../views/i18n.ts';
import { chooseLocale } from '../web/locale.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { accountCsrf } from './csrf.ts';

export interface AccountDeps extends PageDeps {
  /** "Forgot password" requests per client address, counted in this process like registrations. */
  resets: RateLimiter;
}

export type AccountHandler = (deps: AccountDeps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The language and CSRF token every account page renders with. */
export function pageBasics(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): { locale: Locale; csrf: string } {
  return {
    locale: chooseLocale(undefined, request.headers['accept-language']),
    csrf: accountCsrf(deps.secrets, request, reply, deps.config.issuer.startsWith('https:')),
  };
}

/** A query parameter as text, or '' (repeated or missing). */
export function queryText(request: FastifyRequest, name: string, max = 400): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}
