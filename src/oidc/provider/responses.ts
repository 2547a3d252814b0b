// Around every provider route: the security headers of our own pages, no content type on an empty body, and the error
// codes where the library's differ from ZITADEL's documented ones.
import type { KoaContextWithOIDC } from 'oidc-provider';

/** Koa middleware around every provider route: security headers, and responses adjusted to ZITADEL's documented
 *  ones. */
export async function providerResponses(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  // Pages the library renders itself (form_post, which adds its script's hash to script-src) get the same protections
  // as ours (no framing, no foreign resources); pages.ts sets its own policy.
  ctx.set('content-security-policy', "default-src 'none'; script-src 'self'; style-src 'self'; frame-ancestors 'none'");
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('x-content-type-options', 'nosniff');
  await next();
  // An empty body is no text: Koa labels `ctx.body = ''` (revocation's 200, RFC 7009 §2.2) text/plain, which clients
  // that accept only JSON or nothing (oidc-client-ts, as ZITADEL's own @zitadel/react uses it) take for an error, so
  // they never revoke the refresh token. No content, no Content-Type (RFC 9110 §8.3).
  if (ctx.body === '') ctx.remove('Content-Type');
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
