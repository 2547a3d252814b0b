// The introspection endpoint (RFC 7662, with ZITADEL's rules), served by Gatehouse itself: the caller and the token are
// read with one query, which concurrent requests share (platform/batch.ts). Callers authenticate with
// client_secret_basic or private_key_jwt; every failure of that is 401 invalid_client. A token is active only for a
// caller whose client or project is in its audience.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db.ts';
import { batchedStatement } from '../../platform/batch.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import { tooManyRequests } from '../../platform/rate-limit.ts';
import { loginName } from '../../users/lookup.ts';
import { claimsForScopes, userClaims } from '../accounts.ts';
import { tokenClaims } from '../token-claims.ts';
import { activeAccessToken, type TokenReference } from '../access-tokens.ts';
import { INTROSPECTION_SQL, type IntrospectionRow } from '../queries.ts';
import { hashId } from '../payloads.ts';
import { inAudience, tokenAudience } from '../audience.ts';
import type { ClientRateLimit } from '../client-rate-limit.ts';
import { ROUTES } from '../protocol.ts';
import { OAuthError, invalidClient, noStore, readForm, requireParam, sendOAuthError } from './oauth.ts';
import type { ClaimOnce } from '../assertions.ts';
import { presentedClient, verifyClientAssertion, type PresentedClient } from './client-auth.ts';

export interface IntrospectionDeps {
  db: Db;
  issuer: string;
  secrets: SecretBox;
  managementAudience: string;
  resolveToken(value: string): Promise<TokenReference | undefined>;
  claimOnce: ClaimOnce;
  rateLimit: ClientRateLimit;
}

export function registerIntrospection(scope: FastifyInstance, deps: IntrospectionDeps): void {
  const audiences = new Set([deps.issuer, `${deps.issuer}${ROUTES.token}`, `${deps.issuer}${ROUTES.introspection}`]);
  const lookup = batchedStatement<[string, string], IntrospectionRow>(deps.db, INTROSPECTION_SQL);

  scope.post(ROUTES.introspection, async (request, reply) => {
    noStore(reply);
    try {
      const form = readForm(request);
      const caller = callerOf(form, request.headers.authorization);
      const limit = deps.rateLimit.check('app', caller.clientId, request.ip); // only apps introspect
      if (!limit.allowed) return tooManyRequests(reply, limit);
      const value = form.get('token');
      const ref = value ? await deps.resolveToken(value) : undefined;
      const row = await authenticate(
        caller,
        await lookup([ref ? hashId(ref.jti) : '', caller.clientId]),
        deps,
        audiences,
      );
      requireParam(form, 'token');
      deps.rateLimit.hit('app', caller.clientId);
      return reply.send(ref ? await introspect(row, ref, caller.clientId, deps) : { active: false });
    } catch (error) {
      return sendOAuthError(reply, error);
    }
  });
}

/** Basic or private_key_jwt; anything else, and any malformed authentication, is 401 invalid_client. */
function callerOf(form: URLSearchParams, authorization: string | undefined): PresentedClient {
  let caller: PresentedClient;
  try {
    caller = presentedClient(form, authorization);
  } catch (error) {
    throw error instanceof OAuthError ? invalidClient() : error;
  }
  if (caller.method === 'post' || caller.method === 'none') throw invalidClient();
  return caller;
}

/** The row of an authenticated caller; 401 invalid_client otherwise. */
async function authenticate(
  caller: PresentedClient,
  row: IntrospectionRow | undefined,
  deps: IntrospectionDeps,
  audiences: ReadonlySet<string>,
): Promise<IntrospectionRow> {
  if (!row?.caller_client_id) throw invalidClient();
  if (caller.method === 'basic') {
    // basic and post are one registered method family (oidc-provider); the stored secret is a keyed hash
    if (!row.caller_secret_hash || !deps.secrets.verifySecret(caller.secret, row.caller_secret_hash))
      throw invalidClient();
  } else if (caller.method === 'private_key_jwt') {
    if (row.caller_auth_method !== 'private_key_jwt') throw invalidClient();
    await verifyClientAssertion(
      caller.assertion,
      caller.clientId,
      { keys: row.caller_keys ?? [] },
      audiences,
      deps.claimOnce,
    );
  }
  return row;
}

async function introspect(
  row: IntrospectionRow,
  ref: TokenReference,
  callerId: string,
  deps: IntrospectionDeps,
): Promise<Record<string, unknown>> {
  const token = activeAccessToken(row, ref);
  if (!token) return { active: false };
  const { payload, scopes, user } = token;
  const caller = { clientId: callerId, project_id: row.caller_project_id ?? undefined };
  const aud = tokenAudience(
    { clientId: token.client.audienceId, project_id: token.client.projectId },
    scopes,
    deps.managementAudience,
  );
  // A personal access token has no client that could name an audience: any authenticated API client may introspect
  // it, which puts the caller and its project in its audience and asks for the roles of the caller's project
  // (ZITADEL's assertClientScopesForPAT, api/oidc/introspect.go).
  const pat = payload.personalAccessTokenId;
  if (pat) for (const id of [caller.clientId, caller.project_id]) if (id && !aud.includes(id)) aud.push(id);
  if (!inAudience(caller, aud)) return { active: false };
  return {
    ...payload.extra, // auth_time of user logins (provider.ts extraTokenClaims)
    active: true,
    client_id: payload.clientId,
    exp: payload.exp,
    iat: payload.iat,
    nbf: payload.iat,
    iss: deps.issuer,
    // a JWT's jti is printed in the token; an opaque token's jti is the token itself, so report its hash instead (a
    // personal access token has an id of its own, which ZITADEL reports)
    jti: pat ?? (ref.jwt ? payload.jti : hashId(payload.jti)),
    aud,
    ...(payload.scope ? { scope: payload.scope } : {}),
    token_type: 'Bearer',
    username: loginName(user),
    ...claimsForScopes(userClaims(user, scopes), scopes),
    // the roles of the caller's own project (ZITADEL's introspection: currentProjectOnly)
    ...(await tokenClaims(
      deps.db,
      user,
      scopes,
      {
        projectId: row.caller_project_id ?? undefined,
        projectRoleAssertion: Boolean(pat) || Boolean(row.caller_project_role_assertion),
        currentProjectOnly: true,
      },
      true,
    )),
    sub: user.id,
  };
}
