// Revocation rules of the interface (compat.md §6) on top of oidc-provider's endpoint, plus the error codes where
// the library's differ from the interface's tables (oidc-provider-findings §4, §10). Introspection and userinfo are
// Gatehouse's own (endpoints/).
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { JWT_BEARER } from './clients.ts';

type Client = InstanceType<Provider['Client']> & { machine_user_id?: string };
type Token = { kind: string; clientId?: string; accountId?: string; gty?: string; destroy(): Promise<void> };

const MACHINE_GRANTS = new Set(['client_credentials', JWT_BEARER]);

export function createTokenPolicies() {
  return {
    /** Revoking an access token kills only it; a refresh token takes its grant's tokens (oidc-provider default). */
    async revocationAllowed(_ctx: KoaContextWithOIDC, caller: Client, token: Token): Promise<boolean> {
      // A machine user's token is its own, never that of an app whose client ID equals the machine user's name
      // (issue 13 §4: names an older version accepted; access-tokens.ts).
      const othersMachineToken = MACHINE_GRANTS.has(token.gty ?? '') && caller.machine_user_id !== token.accountId;
      if (token.clientId !== caller.clientId || othersMachineToken) {
        const error = new errors.InvalidClient('the token was issued to another client') as Error & {
          status: number;
          statusCode: number;
        };
        error.status = error.statusCode = 401;
        throw error;
      }
      if (token.kind === 'RefreshToken') return true;
      await token.destroy();
      return false; // "do not revoke the grant"; the answer is 200 all the same
    },

    /** Koa middleware around every provider route: security headers, and responses adjusted to the interface's
     *  tables. */
    middleware: async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
      // Pages the library renders itself (form_post, which adds its script's hash to script-src) get the same
      // protections as ours (security.md §12); pages.ts sets its own policy.
      ctx.set(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'",
      );
      ctx.set('x-frame-options', 'DENY');
      ctx.set('referrer-policy', 'no-referrer');
      ctx.set('x-content-type-options', 'nosniff');
      await next();
      const route = ctx.oidc?.route;
      const body = ctx.body as Record<string, unknown> | undefined;
      if (
        route === 'token' &&
        body?.error === 'invalid_request' &&
        body.error_description === 'requested grant type is not allowed for this client'
      ) {
        body.error = 'unauthorized_client';
      }
    },
  };
}
