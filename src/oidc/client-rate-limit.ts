// Per-client abuse control on the token and introspection endpoints (issue "Reliability" §5). A request counts
// only when the provider authenticated its client and answered with success, so requests that merely name another
// client's client_id cannot use up that client's budget; the limit is enforced on the client a request names,
// before the provider does any work.
import type { Middleware } from 'koa';
import { RateLimiter, type RateLimitDecision } from '../platform/rate-limit.ts';

const COUNTED_ROUTES = new Set(['token', 'introspection']);

export interface ClientRateLimit {
  /** Provider middleware that counts authenticated, successful requests per client. */
  middleware: Middleware;
  /** Counts an authenticated, successful request of a client (the endpoints Gatehouse serves itself). */
  hit(clientId: string): void;
  check(clientId: string | undefined, ip: string): RateLimitDecision;
}

export function createClientRateLimit(perMinute: number, exempt: ReadonlySet<string>): ClientRateLimit {
  const limiter = new RateLimiter({ limit: perMinute, windowSeconds: 60 });
  return {
    middleware: async (ctx, next) => {
      await next();
      const oidc = ctx.oidc as { route?: string; client?: { clientId: string } } | undefined;
      if (oidc?.client && COUNTED_ROUTES.has(oidc.route ?? '') && ctx.status < 400) limiter.hit(oidc.client.clientId);
    },
    hit(clientId) {
      limiter.hit(clientId);
    },
    check(clientId, ip) {
      if (exempt.has(ip) || !clientId) return { allowed: true, retryAfterSeconds: 0 };
      return limiter.check(clientId);
    },
  };
}
