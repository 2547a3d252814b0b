// Around every provider route: the security headers of our own pages, and the error codes where the library's differ
// from the interface's tables (oidc-provider-findings §4, §10).
import type { KoaContextWithOIDC } from 'oidc-provider';

/** Koa middleware around every provider route: security headers, and responses adjusted to the interface's tables. */
export async function providerResponses(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  // Pages the library renders itself (form_post, which adds its script's hash to script-src) get the same
  // protections as ours (security.md §12); pages.ts sets its own policy.
  ctx.set('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'");
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
}
