// The password step in one statement before the hash: the interaction, the user the login name denotes and the
// attempt counted (lockout/queries.ts reserveAttemptOfLoginName with the interaction as its gate), instead of the
// interaction first and then the other two. Both are handed to the request's scope (platform/request-scope.ts): the
// interaction for the provider (oidc/read-ahead.ts), the counted attempt for the sign-in (lockout/service.ts
// withAttemptAhead). It runs only for a post that would reach the password check: same origin, the CSRF token of the
// interaction its cookie names, a login name and a password; nothing is counted without the interaction.
import type { FastifyRequest } from 'fastify';
import { withScoped, scoped } from '../platform/request-scope.ts';
import { reserveLoginAttemptOfName, withAttemptAhead } from '../lockout/service.ts';
import { hashId } from '../oidc/payloads.ts';
import { PAYLOAD_AHEAD, revivePayload } from '../oidc/read-ahead.ts';
import type { PayloadWithConsumption } from '../oidc/queries.ts';
import type { LoginDeps } from './interaction.ts';
import { formField } from '../web/forms.ts';
import { sameOriginPost, validCsrfToken } from '../web/security.ts';

const INTERACTION_SQL = `
  SELECT payload, consumed_at FROM oidc_payloads
   WHERE model = 'Interaction' AND id = $9 AND (expires_at IS NULL OR expires_at > now())`;

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
  const interaction = revivePayload(attempt.gateRow as PayloadWithConsumption);
  return withScoped([scoped(PAYLOAD_AHEAD, interaction, `Interaction:${hashId(uid)}`)], () =>
    withAttemptAhead(deps.db, attempt, loginName, fn),
  );
}
