// The userinfo endpoint (OIDC Core §5.3, with ZITADEL's claims), served by Gatehouse itself with one query, which
// concurrent requests share (platform/batch.ts). GET or POST; the token in the Authorization header or, for POST, the
// form body; claims by the token's scopes. Errors as RFC 6750 §3: 401 with a Bearer challenge, 403 insufficient_scope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../../platform/db.ts';
import { claimsForScopes, userClaims } from '../accounts.ts';
import { tokenClaims } from '../token-claims.ts';
import type { ActiveAccessTokenFinder, TokenReference } from '../access-tokens.ts';
import { ROUTES } from '../protocol.ts';
import { OAuthError, invalidRequest, noStore, sendOAuthError } from './oauth.ts';
import { allowOrigin, checkClientOrigin } from './cors.ts';

export interface UserinfoDeps {
  db: Queryable;
  issuer: string;
  resolveToken(value: string): Promise<TokenReference | undefined>;
  findActiveAccessToken: ActiveAccessTokenFinder;
}

export function registerUserinfo(scope: FastifyInstance, deps: UserinfoDeps): void {
  const challenge = (fields: Record<string, string>) =>
    `Bearer ${Object.entries({ realm: deps.issuer, ...fields })
      .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '\\$&')}"`)
      .join(', ')}`;
  const invalidToken = () =>
    new OAuthError(
      401,
      'invalid_token',
      'invalid token provided',
      challenge({ error: 'invalid_token', error_description: 'invalid token provided' }),
    );

  scope.route({
    method: ['GET', 'POST'],
    url: ROUTES.userinfo,
    handler: async (request, reply) => {
      noStore(reply);
      allowOrigin(request, reply, 'WWW-Authenticate');
      try {
        const value = presentedToken(request);
        if (value === undefined) {
          // RFC 6750 §3.1: no error code in the challenge when no token came; the body says invalid_request, as
          // ZITADEL's does
          throw new OAuthError(401, 'invalid_request', 'no access token provided', challenge({}));
        }
        const ref = await deps.resolveToken(value);
        const token = ref && (await deps.findActiveAccessToken(ref));
        if (!token) throw invalidToken();
        if (!token.scopes.has('openid')) {
          throw new OAuthError(
            403,
            'insufficient_scope',
            'access token missing openid scope',
            challenge({
              error: 'insufficient_scope',
              error_description: 'access token missing openid scope',
              scope: 'openid',
            }),
          );
        }
        checkClientOrigin(request, reply, token.client.clientId, (origin) =>
          token.client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin),
        );
        const { user, scopes, client } = token;
        return reply.send({
          ...claimsForScopes(userClaims(user, scopes), scopes),
          ...(await tokenClaims(deps.db, user, scopes, client, true)),
          sub: user.id,
        });
      } catch (error) {
        return sendOAuthError(reply, error);
      }
    },
  });
}

/** The access token of a request: one mechanism only, never the query string (RFC 6750 §2; oidc-provider 9.x
 *  lib/helpers/oidc_context.js getAccessToken, ../protocol.ts OIDC_PROVIDER_MAJOR). */
function presentedToken(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown>;
  if (query.access_token !== undefined) throw invalidRequest('access tokens must not be provided via query parameter');
  const header = request.headers.authorization;
  const body =
    request.method === 'POST' &&
    typeof request.body === 'string' &&
    request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(request.body).getAll('access_token')
      : [];
  if (body.length > 1) throw invalidRequest("'access_token' parameter must not be provided twice");
  if (header && body.length) throw invalidRequest('access token must only be provided using one mechanism');
  if (body.length) return body[0] || undefined;
  if (!header) return undefined;
  const [scheme, value, extra] = header.split(' ');
  if (!value || extra !== undefined) throw invalidRequest('invalid authorization header value format');
  if (scheme!.toLowerCase() !== 'bearer') throw invalidRequest('authorization header scheme must be `Bearer`');
  return value;
}
