import type { Queryable } from '../platform/db.ts';
import { loginNameParts, userByLoginName, type SignInUserRow } from '../users/queries.ts';

/** An account's maximum attempts: the lockout policy's (issue 22, migration 0175), else the configured default
 *  (`param`). Read inside each counting statement, so a change holds on every instance at its next attempt, with no
 *  statement and no cache of its own. */
const accountMax = (param: string) => `coalesce((SELECT max_password_attempts FROM lockout_policy), ${param}::int)`;

export type LockScope = 'account' | 'ip';
export interface LockKey {
  scope: LockScope;
  key: string;
}

export interface Reservation extends LockKey {
  /** The attempt was counted on this key. */
  reserved: boolean;
  /** Seconds left of the key's lock when it refused (0 when it is not locked, only spent). */
  seconds: number;
}

// A key's window starts over once its lock has passed or its window (`seconds`) is over.
const FRESH = 'f.window_started_at <= now() - make_interval(secs => $5) OR f.locked_until <= now()';

/**
 * Counts one attempt on the account and the address at once, before the password is checked (issue 13 §5, issue 26
 * §7): a key takes the attempt only while it is not locked and has fewer than its maximum attempts (failures, and
 * attempts still being checked) in its window. The row lock of ON CONFLICT DO UPDATE makes the check and the count
 * one step, so parallel attempts, on one instance or several, can never take more than the maximum between them.
 * Rows are taken in one order (account, then address), as in releaseAttempt, so statements never deadlock.
 * A key that refuses is left unchanged; its seconds come from the statement's snapshot.
 */
export async function reserveAttempt(
  db: Queryable,
  account: string,
  ip: string,
  max: { account: number; ip: number },
  seconds: number,
): Promise<Reservation[]> {
  const { rows } = await db.query<Reservation>(`WITH ${reserveSql('$1::text')}`, [
    account,
    ip,
    max.account,
    max.ip,
    seconds,
  ]);
  return rows;
}

/** A row an attempt depends on, read by the same statement: `sql` selects it with its parameter `$9`. Without the
 *  row nothing is counted. */
export interface AttemptGate {
  sql: string;
  param: unknown;
}

export type NamedReservation = Reservation & Partial<SignInUserRow> & { gate_row?: unknown };

/**
 * reserveAttempt on the user a login name denotes, read by the same statement (issue 18): the account key is the
 * user's ID, else the lower-cased name ($1). Each row carries the user's columns too (null: no such user), and
 * with a gate its row as `gate_row` (JSON, null: none, and nothing was counted).
 */
export async function reserveAttemptOfLoginName(
  db: Queryable,
  loginName: string,
  ip: string,
  max: { account: number; ip: number },
  seconds: number,
  gate?: AttemptGate,
): Promise<NamedReservation[]> {
  const { rows } = await db.query<NamedReservation>(
    `WITH named AS (${userByLoginName('$6', '$7', '$8')} LIMIT 1), ${gate ? `gate AS (${gate.sql}),` : ''}
     ${reserveSql(
       'coalesce((SELECT id FROM named), $1::text)',
       gate
         ? { columns: 'named.*, (SELECT to_jsonb(gate) FROM gate) AS gate_row', when: 'EXISTS (SELECT 1 FROM gate)' }
         : { columns: 'named.*' },
     )}`,
    [
      loginName.toLowerCase(),
      ip,
      max.account,
      max.ip,
      seconds,
      ...loginNameParts(loginName),
      ...(gate ? [gate.param] : []),
    ],
  );
  return rows;
}

// The CTEs and the answer of reserveAttempt: `account` is the SQL of the account key; $2 the address, $3 and $4 the
// maximum attempts of the account (accountMax's default) and the address, $5 the window in seconds. `more` adds
// columns (from `named`) and a condition for counting.
const reserveSql = (account: string, more?: { columns: string; when?: string }) => `
  k (scope, key, ord) AS (VALUES ('account', ${account}, 1), ('ip', $2::text, 2)),
  counted AS (
    INSERT INTO login_failures AS f (scope, key, failures, window_started_at)
    SELECT scope, key, 1, now() FROM k ${more?.when ? `WHERE ${more.when}` : ''} ORDER BY ord
    ON CONFLICT (scope, key) DO UPDATE SET
      failures = CASE WHEN ${FRESH} THEN 1 ELSE f.failures + 1 END,
      locked_until = CASE WHEN ${FRESH} THEN NULL ELSE f.locked_until END,
      window_started_at = CASE WHEN ${FRESH} THEN now() ELSE f.window_started_at END
    WHERE ${FRESH}
       OR (f.locked_until IS NULL
           AND f.failures < CASE f.scope WHEN 'account' THEN ${accountMax('$3')} ELSE $4::int END)
    RETURNING f.scope, f.key)
  SELECT k.scope, k.key, c.key IS NOT NULL AS reserved,
         coalesce(greatest(0, ceil(extract(epoch FROM old.locked_until - now()))), 0)::int AS seconds
         ${more ? `, ${more.columns}` : ''}
    FROM k LEFT JOIN counted c USING (scope, key) LEFT JOIN login_failures old USING (scope, key)
    ${more ? 'LEFT JOIN named ON true' : ''}`;

/**
 * Gives an attempt back on the keys given (null: not that key): the account's row is deleted when `clearAccount`
 * (a success clears its failures), else decremented; the address's is decremented (its other failures stay). Rows
 * are locked in the order reserveAttempt takes them.
 */
export async function releaseAttempt(
  db: Queryable,
  account: string | null,
  ip: string | null,
  clearAccount: boolean,
): Promise<void> {
  const params: unknown[] = [];
  await db.query(`WITH ${releaseSql((v) => `$${params.push(v)}`, account, ip, clearAccount)} SELECT 1`, params);
}

/** releaseAttempt as CTEs (held, cleared, released), for a statement that writes more (oidc/write-behind.ts);
 *  `param` places a value as a parameter and returns its placeholder. */
export function releaseSql(
  param: (value: unknown) => string,
  account: string | null,
  ip: string | null,
  clearAccount: boolean,
): string {
  const [a, i, clear] = [param(account), param(ip), param(clearAccount)];
  return (
    `held AS (
      SELECT scope, key FROM login_failures WHERE (scope, key) IN (('account', ${a}::text), ('ip', ${i}::text))
       ORDER BY scope FOR UPDATE),
    cleared AS (DELETE FROM login_failures f USING held h ` +
    `WHERE ${clear}::boolean AND h.scope = 'account' AND f.scope = h.scope AND f.key = h.key),
    released AS (UPDATE login_failures f SET failures = greatest(0, f.failures - 1)
      FROM held h WHERE f.scope = h.scope AND f.key = h.key AND NOT (h.scope = 'account' AND ${clear}::boolean))`
  );
}

/** After a failed attempt: locks the key for `seconds` when its attempts reached `max` (an account's: accountMax,
 *  `max` its default); a lock already running is kept, a new one restarts the window, so both end together. Returns
 *  the lock's remaining seconds, 0 when not locked. One row per statement: it cannot deadlock with the two-row
 *  statements. */
export async function lockWhenSpent(db: Queryable, k: LockKey, max: number, seconds: number): Promise<number> {
  const { rows } = await db.query<{ seconds: number }>(
    `UPDATE login_failures SET locked_until = ` +
      `CASE WHEN locked_until > now() THEN locked_until ELSE now() + make_interval(secs => $4) END,
        window_started_at = CASE WHEN locked_until > now() THEN window_started_at ELSE now() END
      WHERE scope = $1 AND key = $2 AND failures >= CASE WHEN $1 = 'account' THEN ${accountMax('$3')} ELSE $3 END
      RETURNING greatest(1, ceil(extract(epoch FROM locked_until - now())))::int AS seconds`,
    [k.scope, k.key, max, seconds],
  );
  return rows[0]?.seconds ?? 0;
}

/** Removes a bounded batch of rows whose window and lock are over, so the table stays small without a timer. Rows
 *  another statement holds are skipped, never waited for. */
export async function purgeStaleFailures(db: Queryable, seconds: number): Promise<void> {
  await db.query(
    `DELETE FROM login_failures WHERE (scope, key) IN (
       SELECT scope, key FROM login_failures
        WHERE window_started_at <= now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until <= now())
        LIMIT 100 FOR UPDATE SKIP LOCKED)`,
    [seconds],
  );
}

export interface LockoutPolicyRow {
  maxPasswordAttempts: number;
  createdAt: Date;
  changedAt: Date;
  sequence: string;
}

/** The stored lockout policy (migration 0175); no row: the configured default. */
export async function findLockoutPolicy(db: Queryable): Promise<LockoutPolicyRow | undefined> {
  const { rows } = await db.query<LockoutPolicyRow>(
    `SELECT max_password_attempts AS "maxPasswordAttempts", created_at AS "createdAt", changed_at AS "changedAt",
            sequence
       FROM lockout_policy`,
  );
  return rows[0];
}

/** Held until the transaction ends, so an update compares with a policy no other update is changing (a singleton
 *  row that may not exist yet cannot be locked with FOR UPDATE). */
export async function lockLockoutPolicy(tx: Queryable): Promise<void> {
  await tx.query('LOCK TABLE lockout_policy IN SHARE ROW EXCLUSIVE MODE');
}

export async function upsertLockoutPolicy(tx: Queryable, max: number, sequence: string, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO lockout_policy (max_password_attempts, created_at, changed_at, sequence) VALUES ($1, $2, $2, $3)
     ON CONFLICT (singleton) DO UPDATE SET max_password_attempts = $1, changed_at = $2, sequence = $3`,
    [max, at, sequence],
  );
}
