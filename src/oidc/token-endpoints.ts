// Introspection and revocation rules of the interface (compat.md §6) on top of oidc-provider's endpoints, plus the
// error codes where the library's differ from the interface's tables (oidc-provider-findings §4, §9, §10).
import { createHash } from 'node:crypto';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../platform/db.ts';
import { findActiveUser, loginName } from '../users/lookup.ts';
import { claimsForScopes, userClaims } from './accounts.ts';
import { inAudience, tokenAudience, type AudienceClient } from './audience.ts';

type Client = InstanceType<Provider['Client']> & AudienceClient;
type Token = { kind: string; clientId?: string; accountId?: string; scope?: string; scopes: Set<string>; destroy(): Promise<void> };

const audiences = new WeakMap<KoaContextWithOIDC, string[]>();

export function createTokenPolicies(db: Db, managementAudience: string) {
  return {
    /** active only for access tokens whose audience holds the caller's client or project, of an active user. */
    async introspectionAllowed(ctx: KoaContextWithOIDC, caller: Client, token: Token): Promise<boolean> {
      if (token.kind !== 'AccessToken' || caller.clientAuthMethod === 'none') return false;
      const tokenClient = (await ctx.oidc.provider.Client.find(token.clientId!)) as Client | undefined;
      if (!tokenClient) return false;
      if (token.accountId && !(await findActiveUser(db, token.accountId))) return false;
      const aud = tokenAudience(tokenClient, token.scopes, managementAudience);
      audiences.set(ctx, aud);
      return inAudience(caller, aud);
    },

    /** Revoking an access token kills only it; a refresh token takes its grant's tokens (oidc-provider default). */
    async revocationAllowed(_ctx: KoaContextWithOIDC, caller: Client, token: Token): Promise<boolean> {
      if (token.clientId !== caller.clientId) {
        const error = new errors.InvalidClient('the token was issued to another client') as Error & { status: number; statusCode: number };
        error.status = error.statusCode = 401;
        throw error;
      }
      if (token.kind === 'RefreshToken') return true;
      await token.destroy();
      return false; // "do not revoke the grant"; the answer is 200 all the same
    },

    /** Koa middleware around every provider route: adjusts responses to the interface's tables. */
    middleware: async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
      await next();
      const route = ctx.oidc?.route;
      const body = ctx.body as Record<string, any> | undefined;
      if (route === 'token' && body?.error === 'invalid_request' && body.error_description === 'requested grant type is not allowed for this client') {
        body.error = 'unauthorized_client';
      } else if (route === 'userinfo' && ctx.status === 401 && body?.error_description === 'no access token provided') {
        body.error = 'invalid_request'; // compat.md §6: no token → 401 invalid_request
      } else if (route === 'introspection') {
        await adjustIntrospection(ctx, db);
      }
    },
  };
}

async function adjustIntrospection(ctx: KoaContextWithOIDC, db: Db): Promise<void> {
  const body = ctx.body as Record<string, any> | undefined;
  const client = ctx.oidc.client;
  // Introspection callers authenticate with client_secret_basic or private_key_jwt only; a missing or other
  // method is 401 invalid_client (interface.md Authentication; compat.md §6).
  const noAuth = body?.error === 'invalid_request' && /client authentication/.test(String(body.error_description));
  const viaPost = ctx.oidc.params?.client_secret !== undefined && !ctx.headers.authorization;
  if (noAuth || (client && (client.clientAuthMethod === 'none' || viaPost))) {
    ctx.status = 401;
    ctx.body = { error: 'invalid_client', error_description: 'client authentication failed' };
    return;
  }
  if (!body?.active) return;
  const token = ctx.oidc.entities.AccessToken as unknown as Token & { jti: string } | undefined;
  if (!token) return;
  body.aud = audiences.get(ctx) ?? [token.clientId];
  body.nbf ??= body.iat;
  // an opaque token's id is the token itself: report a hash instead of echoing the secret
  body.jti ??= createHash('sha256').update(token.jti).digest('base64url');
  body.token_type = 'Bearer';
  delete body.sid;
  if (token.accountId) {
    const user = await findActiveUser(db, token.accountId);
    if (user) {
      body.username = loginName(user);
      Object.assign(body, claimsForScopes(await userClaims(db, user, token.scopes), token.scopes), { sub: token.accountId });
    }
  }
}
