// What the account pages take: the login pages' dependencies (pages, provider, hashing queue, mailer) and their
// own limit on reset requests per client address.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LoginDeps } from '../login/interaction.ts';
import { chooseLocale, type Locale } from '../login/i18n.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { accountCsrf } from './csrf.ts';

export interface AccountDeps extends LoginDeps {
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
