// The password step in one statement before the hash: the interaction, the user the login name denotes
// and the attempt counted (lockout/queries.ts reserveAttemptOfLoginName with the interaction as its gate), instead
// of the interaction first and then the other two. The provider takes the interaction from here
// (oidc/read-ahead.ts), the sign-in the counted attempt (takeCountedAttempt). It runs only for a post that would
// reach the password check: same origin, the CSRF token of the interaction its cookie names, a login name and a
// password; nothing is counted without the interaction. An attempt counted here that the sign-in does not take (the
// provider refused the interaction after all) is given back when the step ends.
import type { FastifyRequest } from 'fastify';
import { releaseAttempt } from '../lockout/queries.ts';
import { reserveLoginAttemptOfName, type NamedAttempt } from '../lockout/service.ts';
import { hashId } from '../oidc/payloads.ts';
import { revivePayload, takeReadAhead, within } from '../oidc/read-ahead.ts';
import type { PayloadWithConsumption } from '../oidc/queries.ts';
import type { LoginDeps } from './interaction.ts';
import { formField } from '../web/forms.ts';
import { sameOriginPost, validCsrfToken } from '../web/security.ts';

const INTERACTION_SQL = `
  SELECT payload, consumed_at FROM oidc_payloads
   WHERE model = 'Interaction' AND id = $9 AND (expires_at IS NULL OR expires_at > now())`;

const attemptKey = (loginName: string, ip: string) => `attempt:${ip}:${loginName}`;

export async function withPasswordCheckAhead<T>(
  deps: LoginDeps,
  request: FastifyRequest,
  loginName: string,
  fn: () => Promise<T>,
): Promise<T> {
  const uid = (request.cookies as Record<string, string | undefined>)[deps.oidc.provider().cookieName('interaction')];
  if (
    !uid ||
    uid !== (request.params as { uid?: string }).uid ||
    !loginName ||
    !formField(request, 'password') ||
    !sameOriginPost(request.headers, new URL(deps.config.issuer).origin) ||
    !validCsrfToken(deps.secrets, uid, formField(request, 'csrf'))
  )
    return fn();
  const gate = { sql: INTERACTION_SQL, param: hashId(uid) };
  const attempt = await reserveLoginAttemptOfName(deps.db, deps.config.lockout, loginName, request.ip, gate);
  if (!attempt) return fn(); // no such interaction: the provider answers for it
  const key = attemptKey(loginName, request.ip);
  const rows = new Map<string, unknown>([
    [`Interaction:${hashId(uid)}`, revivePayload(attempt.gateRow as PayloadWithConsumption)],
    [key, attempt],
  ]);
  try {
    return await within(rows, fn);
  } finally {
    if (rows.has(key) && attempt.wait === 0)
      await releaseAttempt(deps.db, 'account', attempt.subject.account, attempt.subject.ip, false);
  }
}

/** The attempt counted ahead for this login name and address in this request, once. */
export function takeCountedAttempt(loginName: string, ip: string): NamedAttempt | undefined {
  return takeReadAhead<NamedAttempt>(attemptKey(loginName, ip))?.row;
}
