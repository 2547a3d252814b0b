import type { Queryable } from '../platform/db.ts';

export type LockScope = 'account' | 'ip';
export interface LockKey { scope: LockScope; key: string }

/** The rows of the keys that have one, with the seconds left of each lock (0 when not locked). Database time, so
 *  every instance agrees. */
export async function findLocks(db: Queryable, keys: readonly LockKey[]): Promise<(LockKey & { seconds: number })[]> {
  const { rows } = await db.query<LockKey & { seconds: number }>(
    `SELECT scope, key, greatest(0, ceil(extract(epoch FROM locked_until - now())))::int AS seconds FROM login_failures
      WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [keys.map((k) => k.scope), keys.map((k) => k.key)],
  );
  return rows;
}

/** Counts one failure in the key's window (a new window once the previous one or its lock has passed) and locks
 *  the key for `seconds` when the count reaches `max`. Returns the lock's remaining seconds, 0 when not locked. */
export async function addFailure(tx: Queryable, k: LockKey, max: number, seconds: number): Promise<number> {
  const { rows } = await tx.query<{ failures: number }>(
    `INSERT INTO login_failures AS f (scope, key, failures, window_started_at) VALUES ($1, $2, 1, now())
     ON CONFLICT (scope, key) DO UPDATE SET
       failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) OR f.locked_until <= now() THEN 1 ELSE f.failures + 1 END,
       locked_until = CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) OR f.locked_until <= now() THEN NULL ELSE f.locked_until END,
       window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $3) OR f.locked_until <= now() THEN now() ELSE f.window_started_at END
     RETURNING failures`,
    [k.scope, k.key, seconds],
  );
  if (rows[0]!.failures < max) return 0;
  await tx.query(
    `UPDATE login_failures SET locked_until = now() + make_interval(secs => $3), failures = 0, window_started_at = now()
      WHERE scope = $1 AND key = $2`,
    [k.scope, k.key, seconds],
  );
  return seconds;
}

export async function deleteFailures(db: Queryable, k: LockKey): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE scope = $1 AND key = $2', [k.scope, k.key]);
}

/** Removes a bounded batch of rows whose window and lock are over, so the table stays small without a timer. */
export async function purgeStaleFailures(db: Queryable, seconds: number): Promise<void> {
  await db.query(
    `DELETE FROM login_failures WHERE (scope, key) IN (
       SELECT scope, key FROM login_failures
        WHERE window_started_at <= now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until <= now())
        LIMIT 100)`,
    [seconds],
  );
}
