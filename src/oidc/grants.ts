// Grants for machine users (compat.md §6): the JWT-profile grant (RFC 7523) and client_credentials. Both issue an
// access token that belongs to the machine user (sub = its user ID) through a saved Grant, so the token works at
// userinfo, introspection, revocation and the management API like any user token.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type Provider from 'oidc-provider';
import { errors, type FindAccount, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import { JWT_BEARER } from './clients.ts';
import { filterMachineScopes } from './scopes.ts';

const CLOCK_TOLERANCE = 15;

export function registerMachineGrants(provider: Provider, config: Config, findAccount: FindAccount): void {
  provider.registerGrantType(JWT_BEARER, async (ctx: KoaContextWithOIDC) => {
    const { params, client } = ctx.oidc;
    const assertion = params!.assertion as string | undefined;
    if (!assertion) throw new errors.InvalidRequest("missing required parameter 'assertion'");
    if (!params!.scope) throw new errors.InvalidRequest("missing required parameter 'scope'");
    const userId = client!['machine_user_id' as never] as string | undefined;
    if (!userId) throw new errors.UnauthorizedClient('the client may not use this grant type');
    try {
      const { payload } = await jwtVerify(assertion, createLocalJWKSet((client!.jwks ?? { keys: [] }) as JSONWebKeySet), {
        issuer: userId,
        subject: userId,
        // the issuer, as ZITADEL's SDKs send it (with or without a trailing slash), or the token endpoint
        audience: [config.issuer, `${config.issuer}/`, `${config.issuer}/oauth/v2/token`],
        requiredClaims: ['exp', 'iat'],
        maxTokenAge: config.assertionMaxAge,
        clockTolerance: CLOCK_TOLERANCE,
      });
      if (payload.jti && !(await provider.ReplayDetection.unique(userId, payload.jti, payload.exp! + CLOCK_TOLERANCE))) {
        throw new errors.InvalidGrant('assertion has already been used');
      }
    } catch (error) {
      if (error instanceof errors.InvalidGrant) throw error;
      throw new errors.InvalidGrant(`invalid assertion: ${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'}`);
    }
    await issueMachineToken(ctx, findAccount, userId, filterMachineScopes(String(params!.scope)), JWT_BEARER, true);
  }, ['assertion', 'scope']);

  provider.registerGrantType('client_credentials', async (ctx: KoaContextWithOIDC) => {
    const userId = ctx.oidc.client!['machine_user_id' as never] as string | undefined;
    if (!userId) throw new errors.UnauthorizedClient('the client may not use this grant type');
    if (!ctx.oidc.params!.scope) throw new errors.InvalidRequest("missing required parameter 'scope'"); // interface.md
    await issueMachineToken(ctx, findAccount, userId, filterMachineScopes(String(ctx.oidc.params!.scope)), 'client_credentials', false);
  }, ['scope']);
}

async function issueMachineToken(ctx: KoaContextWithOIDC, findAccount: FindAccount, userId: string, scope: string, gty: string, withIdToken: boolean): Promise<void> {
  const { provider, client } = ctx.oidc;
  const account = await findAccount(ctx, userId);
  if (!account) throw new errors.InvalidGrant('the user is not active');
  ctx.oidc.entity('Account', account);
  const grant = new provider.Grant({ accountId: userId, clientId: client!.clientId });
  if (scope) grant.addOIDCScope(scope);
  await grant.save();
  const at = new provider.AccessToken({ accountId: userId, client: client!, grantId: grant.jti, gty, scope, expiresWithSession: false } as never);
  ctx.oidc.entity('AccessToken', at);
  const accessToken = await at.save();
  const body: Record<string, unknown> = { access_token: accessToken, expires_in: at.expiration, scope, token_type: 'Bearer' };
  if (withIdToken && scope.split(' ').includes('openid')) {
    const claims = await account.claims('id_token', scope, {}, []);
    const idToken = new provider.IdToken({ ...claims, sub: userId }, { ctx });
    (idToken as unknown as { scope: string }).scope = scope;
    body.id_token = await idToken.issue({ use: 'idtoken' });
  }
  ctx.body = body;
}
