// A fixed-window request limit counted in the database, so every instance behind a balancer counts the same requests.
// For rare requests only (self-registration): each hit is a write. The per-request limits of the hot endpoints stay in
// process memory (rate-limit.ts), where a shared count would cost a write per request.
import type { Queryable } from './db.ts';
import type { RateLimitDecision, RateLimitRule } from './rate-limit.ts';

export class SharedRateLimiter {
  readonly #db: Queryable;
  readonly #scope: string;
  readonly #rule: RateLimitRule;

  constructor(db: Queryable, scope: string, rule: RateLimitRule) {
    this.#db = db;
    this.#scope = scope;
    this.#rule = rule;
  }

  /** Counts a request of `key`; allowed while the window's count is within the limit. The row lock of ON CONFLICT
   *  DO UPDATE serialises parallel hits, so instances together never allow more than the limit. The same statement
   *  removes a bounded batch of this scope's ended windows (skipping rows others hold), so the table stays small
   *  without a timer. */
  async hit(key: string): Promise<RateLimitDecision> {
    if (this.#rule.limit <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const ended = 'window_started_at <= now() - make_interval(secs => $3)';
    const { rows } = await this.#db.query<{ hits: number; seconds: number }>(
      `WITH purged AS (
         DELETE FROM rate_counters WHERE (scope, key) IN (
           SELECT scope, key FROM rate_counters WHERE scope = $1 AND key <> $2 AND ${ended}
            LIMIT 100 FOR UPDATE SKIP LOCKED))
       INSERT INTO rate_counters AS c (scope, key, hits, window_started_at) VALUES ($1, $2, 1, now())
       ON CONFLICT (scope, key) DO UPDATE SET
         hits = CASE WHEN c.${ended} THEN 1 ELSE c.hits + 1 END,
         window_started_at = CASE WHEN c.${ended} THEN now() ELSE c.window_started_at END
       RETURNING hits,
         greatest(1, ceil(extract(epoch FROM window_started_at + make_interval(secs => $3) - now())))::int AS seconds`,
      [this.#scope, key, this.#rule.windowSeconds],
    );
    const { hits, seconds } = rows[0]!;
    return { allowed: hits <= this.#rule.limit, retryAfterSeconds: seconds };
  }
}
