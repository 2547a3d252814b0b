// An authorization request may store a pending interaction, a logout request a session with its confirmation state,
// both for callers without any session, and a public client's push (RFC 9126) a pushed request without any client
// authentication. One client address (request.ip: the peer, or the X-Forwarded-For client behind a trusted proxy) gets
// GATEHOUSE_AUTHORIZE_PER_IP of them a minute. Requests with a session cookie count alike: telling them apart would
// cost a lookup per request. Browsers are sent to the first two, so their 429 is a page; a push's is JSON.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { RateLimiter, registerIpRateLimit, type RateLimitDecision } from '../../platform/rate-limit.ts';
import { ROUTES } from '../protocol.ts';

const STORING_ROUTES = new Set<string>([ROUTES.authorization, ROUTES.end_session]);

export type BusyPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: { error: string; message: string; status: number; retryAfterSeconds: number },
) => Promise<FastifyReply>;

/** Counts one more storing request of the address and says whether it is allowed (an exempt address always is). */
export type StoringHit = (ip: string) => RateLimitDecision;

export function limitStoringRequests(
  scope: FastifyInstance,
  config: Pick<Config, 'authorizePerIp' | 'rateLimit'>,
  page: BusyPage,
): StoringHit {
  const limiter = new RateLimiter({ limit: config.authorizePerIp, windowSeconds: 60 });
  const exempt = new Set(config.rateLimit.exempt);
  registerIpRateLimit(
    scope,
    limiter,
    exempt,
    (request) => request.method === 'GET' && STORING_ROUTES.has(request.routeOptions.url ?? ''),
    (request, reply, decision) => {
      reply.header('retry-after', String(decision.retryAfterSeconds));
      return page(request, reply, {
        error: 'temporarily_unavailable',
        message: 'too many requests; retry later',
        status: 429,
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    },
  );
  return (ip) => (exempt.has(ip) ? { allowed: true, retryAfterSeconds: 0 } : limiter.hit(ip));
}
