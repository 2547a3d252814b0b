// Abuse control: fixed-window request counters per key (client IP, client ID), kept in process memory. Each instance
// limits on its own, so N instances behind a balancer allow up to N times the configured rate; that bounds abuse
// without a shared store on the hot path. Brute force on passwords is handled separately by the login lockout, which is
// stored in Postgres so that all instances agree.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface RateLimitRule {
  /** Requests allowed per window; 0 disables the rule. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

interface Window {
  startedAt: number;
  count: number;
}

// Upper bound on tracked keys: a flood of distinct keys (spoofed client IDs) must not grow memory without limit.
const MAX_KEYS = 100_000;

export class RateLimiter {
  readonly #rule: RateLimitRule;
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(rule: RateLimitRule, now: () => number = Date.now) {
    this.#rule = rule;
    this.#now = now;
  }

  /** Whether key is over its limit, without counting a request. */
  check(key: string): RateLimitDecision {
    if (this.#rule.limit <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.#now();
    const window = this.#windows.get(key);
    const windowMs = this.#rule.windowSeconds * 1000;
    if (!window || now - window.startedAt >= windowMs) return { allowed: true, retryAfterSeconds: 0 };
    return {
      allowed: window.count < this.#rule.limit,
      retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)),
    };
  }

  hit(key: string): RateLimitDecision {
    if (this.#rule.limit <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.#now();
    const windowMs = this.#rule.windowSeconds * 1000;
    let window = this.#windows.get(key);
    if (!window || now - window.startedAt >= windowMs) {
      if (!window && this.#windows.size >= MAX_KEYS) this.#evictExpired(now, windowMs);
      window = { startedAt: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
    return { allowed: window.count <= this.#rule.limit, retryAfterSeconds };
  }

  #evictExpired(now: number, windowMs: number): void {
    for (const [key, w] of this.#windows) if (now - w.startedAt >= windowMs) this.#windows.delete(key);
    // Still full: every key is active. Drop the oldest half rather than refuse to track new keys.
    if (this.#windows.size >= MAX_KEYS) {
      let n = 0;
      for (const key of this.#windows.keys()) {
        if (n++ >= MAX_KEYS / 2) break;
        this.#windows.delete(key);
      }
    }
  }
}

/** The answer to a limited request (RFC 6585 §4): 429 with Retry-After. */
export function tooManyRequests(reply: FastifyReply, decision: RateLimitDecision): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(decision.retryAfterSeconds))
    .send({ error: 'temporarily_unavailable', error_description: 'too many requests; retry later' });
}

/** Per-IP limit on the routes that take credentials: checked before anything else runs for them. */
export function registerIpRateLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  exempt: ReadonlySet<string>,
  limited: (request: FastifyRequest) => boolean,
  answer: LimitAnswer = (_request, reply, decision) => tooManyRequests(reply, decision),
): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt.has(request.ip) || !limited(request)) return done();
    const decision = limiter.hit(request.ip);
    // answered: the request goes no further
    if (!decision.allowed)
      return void Promise.resolve(answer(request, reply, decision)).catch((err) => reply.send(err));
    done();
  });
}

/** How a limited request is answered: JSON (the default) or, where browsers are sent, a page. */
export type LimitAnswer = (
  request: FastifyRequest,
  reply: FastifyReply,
  decision: RateLimitDecision,
) => FastifyReply | Promise<FastifyReply>;
