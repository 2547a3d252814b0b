// What the OIDC layer borrows from the login pages: the pages oidc-provider renders itself and the edge's refusals in
// the login pages' look and languages, the same-origin check of the provider's own form posts, and the browser's
// signed-in accounts. src/login/provider-pages.ts provides them and app.ts hands them to registerOidc, so that oidc/
// never imports login/.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The parts of oidc-provider's Koa context these pages read and write. */
export interface PageContext {
  status: number;
  body: unknown;
  type: string;
  set(name: string, value: string): void;
  get(name: string): string;
  query?: Record<string, unknown>;
  oidc?: {
    params?: Record<string, unknown>;
    session?: { accountId?: string; state?: Record<string, unknown> };
    entities?: { IdTokenHint?: { payload?: { sub?: unknown } } };
    urlFor(name: string): string;
  };
}

export interface ProviderPages {
  logoutSource(ctx: PageContext, form: string): Promise<void>;
  postLogoutSuccessSource(ctx: PageContext): Promise<void>;
  renderError(ctx: PageContext, out: Record<string, unknown>, error: Error): Promise<void>;
  /** The same error page for a browser request the edge refuses before the provider sees it (an address over its rate,
   *  a NUL character). */
  refusal(
    request: FastifyRequest,
    reply: FastifyReply,
    error: { error: string; message: string; status?: number; retryAfterSeconds?: number },
  ): Promise<FastifyReply>;
  /** An onRequest hook for the form posts the provider handles itself (the logout confirmation): the Origin /
   *  Sec-Fetch-Site check against cross-site form posts; the provider checks its own xsrf token. */
  sameOriginPostsOnly(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
  /** The languages the pages speak: discovery's ui_locales_supported. */
  locales: readonly string[];
  /** How many accounts have signed in on this browser: the login pages' list, in their cookie (the account chooser
   *  prompt, provider.ts severalAccounts). */
  knownAccounts(cookies: { get(name: string): string | undefined }): number;
}
