// Revocation rules of the interface (compat.md §6) on top of oidc-provider's endpoint, plus the error codes where
// the library's differ from the interface's tables (oidc-provider-findings §4, §10). Introspection and userinfo are
// Gatehouse's own (endpoints/).
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

type Client = InstanceType<Provider['Client']>;
type Token = { kind: string; clientId?: string; destroy(): Promise<void> };

export function createTokenPolicies() {
  return {
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

    /** Koa middleware around every provider route: security headers, and responses adjusted to the interface's tables. */
    middleware: async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
      // Pages the library renders itself (form_post, which adds its script's hash to script-src) get the same
      // protections as ours (security.md §12); pages.ts sets its own policy.
      ctx.set('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'");
      ctx.set('x-frame-options', 'DENY');
      ctx.set('referrer-policy', 'no-referrer');
      ctx.set('x-content-type-options', 'nosniff');
      await next();
      const route = ctx.oidc?.route;
      const body = ctx.body as Record<string, any> | undefined;
      if (route === 'token' && body?.error === 'invalid_request' && body.error_description === 'requested grant type is not allowed for this client') {
        body.error = 'unauthorized_client';
      }
    },
  };
}
