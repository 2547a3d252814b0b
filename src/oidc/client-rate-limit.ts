// Per-client abuse control on the token, introspection and pushed authorization request endpoints. A request counts
// only when the provider authenticated its client and answered with success, so requests that merely name another
// client's client_id cannot use up that client's budget; the limit is enforced on the client a request names, before
// the provider does any work.
//
// Budgets are kept per kind of client (clients.ts): an app by its client ID, a machine user by its user ID (the
// JWT-profile client) and by its user name (the client_credentials client). The same text in two kinds is two clients,
// so a machine user named like an app's client ID uses up its own budget, never the app's.
import type { Middleware } from 'koa';
import { RateLimiter, type RateLimitDecision } from '../platform/rate-limit.ts';
import { JWT_BEARER } from './protocol.ts';

const COUNTED_ROUTES = new Set(['token', 'introspection', 'pushed_authorization_request']);

export type ClientKind = 'app' | 'machine-id' | 'machine-name';

/** The kind of client a token request names, known from its grant alone: only machine users have these grants. */
export function tokenRequestClientKind(grantType: string | null): ClientKind {
  if (grantType === 'client_credentials') return 'machine-name';
  return grantType === JWT_BEARER ? 'machine-id' : 'app';
}

// user names are matched without case (users/queries.ts), so their budget is too
const limiterKey = (kind: ClientKind, clientId: string) =>
  `${kind}:${kind === 'machine-name' ? clientId.toLowerCase() : clientId}`;

/** The kind of a client oidc-provider resolved (clients.ts findClientMetadata). */
function providerClientKind(client: { clientId: string; machine_user_id?: string }): ClientKind {
  if (!client.machine_user_id) return 'app';
  return client.clientId === client.machine_user_id ? 'machine-id' : 'machine-name';
}

export interface ClientRateLimit {
  /** Provider middleware that counts authenticated, successful requests per client. */
  middleware: Middleware;
  /** Counts an authenticated, successful request of a client (the endpoints Gatehouse serves itself). */
  hit(kind: ClientKind, clientId: string): void;
  check(kind: ClientKind, clientId: string | undefined, ip: string): RateLimitDecision;
}

export function createClientRateLimit(perMinute: number, exempt: ReadonlySet<string>): ClientRateLimit {
  const limiter = new RateLimiter({ limit: perMinute, windowSeconds: 60 });
  return {
    middleware: async (ctx, next) => {
      await next();
      const oidc = ctx.oidc as { route?: string; client?: { clientId: string; machine_user_id?: string } } | undefined;
      if (oidc?.client && COUNTED_ROUTES.has(oidc.route ?? '') && ctx.status < 400)
        limiter.hit(limiterKey(providerClientKind(oidc.client), oidc.client.clientId));
    },
    hit(kind, clientId) {
      limiter.hit(limiterKey(kind, clientId));
    },
    check(kind, clientId, ip) {
      if (exempt.has(ip) || !clientId) return { allowed: true, retryAfterSeconds: 0 };
      return limiter.check(limiterKey(kind, clientId));
    },
  };
}
