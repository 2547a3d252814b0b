import type { Queryable } from '../platform/db.ts';
import { loginNameParts, userByLoginName, type SignInUserRow } from '../users/queries.ts';

/** The counters of a user: its password failures ('account') and, apart from them, its second-factor failures
 *  ('factor', migration 0220), so a correct password does not forget wrong codes. */
export type UserScope = 'account' | 'factor';
export type LockScope = UserScope | 'ip';

const POLICY_MAX: Record<UserScope, string> = { account: 'max_password_attempts', factor: 'max_otp_attempts' };

/** A user counter's maximum attempts: the instance's lockout policy (migrations 0175 and 0220), else the
 *  configured default (`param`). Read inside each counting statement, so a change holds on every instance at its
 *  next attempt, with no statement and no cache of its own. */
const userMax = (scope: UserScope, param: string) =>
  `coalesce((SELECT ${POLICY_MAX[scope]} FROM lockout_policy), ${param}::int)`;
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
 * Counts one attempt on a user counter (`scope`) and the address at once, before the password or code is checked (per
 * account and per address): a key takes the attempt only while it is not locked and has fewer than its maximum attempts
 * (failures, and attempts still being checked) in its window. The row lock of ON CONFLICT DO UPDATE makes the check and
 * the count one step, so parallel attempts, on one instance or several, can never take more than the maximum between
 * them. Rows are taken in one order (user counter, then address), as in releaseAttempt, so statements never deadlock. A
 * key that refuses is left unchanged; its seconds come from the statement's snapshot.
 */
export async function reserveAttempt(
  db: Queryable,
  scope: UserScope,
  account: string,
  ip: string,
  max: { account: number; ip: number },
  seconds: number,
): Promise<Reservation[]> {
  const { rows } = await db.query<Reservation>(`WITH ${reserveSql(scope, '$1::text')}`, [
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
 * reserveAttempt on the user a login name denotes, read by the same statement: the account key is the user's ID, else
 * the lower-cased name ($1). Each row carries the user's columns too (null: no such user), and with a gate its row as
 * `gate_row` (JSON, null: none, and nothing was counted).
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
       'account',
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

// The CTEs and the answer of reserveAttempt: `account` is the SQL of the user's key in `scope`; $2 the address, $3
// and $4 the maximum attempts of the user counter (userMax's default) and the address, $5 the window in seconds.
// `more` adds columns (from `named`) and a condition for counting.
const reserveSql = (scope: UserScope, account: string, more?: { columns: string; when?: string }) => `
  k (scope, key, ord) AS (VALUES ('${scope}', ${account}, 1), ('ip', $2::text, 2)),
  counted AS (
    INSERT INTO login_failures AS f (scope, key, failures, window_started_at)
    SELECT scope, key, 1, now() FROM k ${more?.when ? `WHERE ${more.when}` : ''} ORDER BY ord
    ON CONFLICT (scope, key) DO UPDATE SET
      failures = CASE WHEN ${FRESH} THEN 1 ELSE f.failures + 1 END,
      locked_until = CASE WHEN ${FRESH} THEN NULL ELSE f.locked_until END,
      window_started_at = CASE WHEN ${FRESH} THEN now() ELSE f.window_started_at END
    WHERE ${FRESH}
       OR (f.locked_until IS NULL
           AND f.failures < CASE f.scope WHEN 'ip' THEN $4::int ELSE ${userMax(scope, '$3')} END)
    RETURNING f.scope, f.key)
  SELECT k.scope, k.key, c.key IS NOT NULL AS reserved,
         coalesce(greatest(0, ceil(extract(epoch FROM old.locked_until - now()))), 0)::int AS seconds
         ${more ? `, ${more.columns}` : ''}
    FROM k LEFT JOIN counted c USING (scope, key) LEFT JOIN login_failures old USING (scope, key)
    ${more ? 'LEFT JOIN named ON true' : ''}`;

/**
 * Gives an attempt back on the keys given (null: not that key): the user counter's row (`scope`) is deleted when
 * `clearUser` (a success clears its failures), else decremented; the address's is decremented (its other failures
 * stay). Rows are locked in the order reserveAttempt takes them.
 */
export async function releaseAttempt(
  db: Queryable,
  scope: UserScope,
  account: string | null,
  ip: string | null,
  clearUser: boolean,
): Promise<void> {
  const params: unknown[] = [];
  await db.query(`WITH ${releaseSql((v) => `$${params.push(v)}`, scope, account, ip, clearUser)} SELECT 1`, params);
}

/** releaseAttempt as CTEs (held, cleared, released), for a statement that writes more (a unit of work's:
 *  platform/request-scope.ts); `param` places a value as a parameter and returns its placeholder. */
export function releaseSql(
  param: (value: unknown) => string,
  scope: UserScope,
  account: string | null,
  ip: string | null,
  clearUser: boolean,
): string {
  const [s, a, i, clear] = [param(scope), param(account), param(ip), param(clearUser)];
  return (
    `held AS (
      SELECT scope, key FROM login_failures WHERE (scope, key) IN ((${s}::text, ${a}::text), ('ip', ${i}::text))
       ORDER BY scope FOR UPDATE),
    cleared AS (DELETE FROM login_failures f USING held h ` +
    `WHERE ${clear}::boolean AND h.scope <> 'ip' AND f.scope = h.scope AND f.key = h.key),
    released AS (UPDATE login_failures f SET failures = greatest(0, f.failures - 1)
      FROM held h WHERE f.scope = h.scope AND f.key = h.key AND NOT (h.scope <> 'ip' AND ${clear}::boolean))`
  );
}

/** After a failed attempt: locks the key for `seconds` when its attempts reached `max` (a user counter's: userMax,
 *  `max` its default); a lock already running is kept, a new one restarts the window, so both end together. Returns
 *  the lock's remaining seconds, 0 when not locked. One row per statement: it cannot deadlock with the two-row
 *  statements. */
export async function lockWhenSpent(db: Queryable, k: LockKey, max: number, seconds: number): Promise<number> {
  const { rows } = await db.query<{ seconds: number }>(
    `UPDATE login_failures SET locked_until = ` +
      `CASE WHEN locked_until > now() THEN locked_until ELSE now() + make_interval(secs => $4) END,
        window_started_at = CASE WHEN locked_until > now() THEN window_started_at ELSE now() END
      WHERE scope = $1 AND key = $2 AND failures >= CASE $1::text
        WHEN 'account' THEN ${userMax('account', '$3')} WHEN 'factor' THEN ${userMax('factor', '$3')} ELSE $3 END
      RETURNING greatest(1, ceil(extract(epoch FROM locked_until - now())))::int AS seconds`,
    [k.scope, k.key, max, seconds],
  );
  return rows[0]?.seconds ?? 0;
}

/** Locks the user's password counter until `seconds` from now (a later lock already running is kept): a user locked by
 *  wrong second factors is locked as a whole, its password not checked either. One row. */
export async function lockAccountFor(db: Queryable, account: string, seconds: number): Promise<void> {
  await db.query(
    `INSERT INTO login_failures AS f (scope, key, failures, window_started_at, locked_until)
     VALUES ('account', $1, 0, now(), now() + make_interval(secs => $2))
     ON CONFLICT (scope, key) DO UPDATE SET
       locked_until = greatest(f.locked_until, excluded.locked_until),
       window_started_at = CASE WHEN f.locked_until > now() THEN f.window_started_at ELSE now() END`,
    [account, seconds],
  );
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
  maxOtpAttempts: number;
  createdAt: Date;
  changedAt: Date;
  sequence: string;
}

/** The stored lockout policy (migrations 0175, 0220); no row: the configured default. */
export async function findLockoutPolicy(db: Queryable): Promise<LockoutPolicyRow | undefined> {
  const { rows } = await db.query<LockoutPolicyRow>(
    `SELECT max_password_attempts AS "maxPasswordAttempts", max_otp_attempts AS "maxOtpAttempts",
            created_at AS "createdAt", changed_at AS "changedAt", sequence
       FROM lockout_policy`,
  );
  return rows[0];
}

/** Held until the transaction ends, so an update compares with a policy no other update is changing (a singleton
 *  row that may not exist yet cannot be locked with FOR UPDATE). */
export async function lockLockoutPolicy(tx: Queryable): Promise<void> {
  await tx.query('LOCK TABLE lockout_policy IN SHARE ROW EXCLUSIVE MODE');
}

export async function upsertLockoutPolicy(
  tx: Queryable,
  max: { maxPasswordAttempts: number; maxOtpAttempts: number },
  sequence: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO lockout_policy (max_password_attempts, max_otp_attempts, created_at, changed_at, sequence)
     VALUES ($1, $2, $3, $3, $4)
     ON CONFLICT (singleton) DO UPDATE SET max_password_attempts = $1, max_otp_attempts = $2, changed_at = $3,
       sequence = $4`,
    [max.maxPasswordAttempts, max.maxOtpAttempts, at, sequence],
  );
}

/** A user whose password counter is locked now, by failed password attempts or by failed second factors
 *  (lockAccountFor, which counts no password failure: `failures` 0). */
export interface AccountLock {
  userId: string;
  failures: number;
  lockedUntil: Date;
}

/** The running locks of the users `userIds` of org `orgId` (the console's user list and page): one primary-key
 *  probe per id, and a user of another org is never answered. */
export async function findAccountLocks(
  db: Queryable,
  orgId: string,
  userIds: readonly string[],
): Promise<AccountLock[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<AccountLock>(
    `SELECT f.key AS "userId", f.failures, f.locked_until AS "lockedUntil"
       FROM login_failures f JOIN users u ON u.id = f.key AND u.org_id = $1
      WHERE f.scope = 'account' AND f.key = ANY($2::text[]) AND f.locked_until > now()`,
    [orgId, userIds],
  );
  return rows;
}

/** Forgets a user's password and second-factor failures and their lock (UnlockUser), in the caller's transaction;
 *  the address's counter is not the user's and stays. Returns whether a lock was running. */
export async function clearUserCounters(tx: Queryable, userId: string): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>(
    `DELETE FROM login_failures WHERE scope IN ('account', 'factor') AND key = $1
     RETURNING coalesce(locked_until > now(), false) AS locked`,
    [userId],
  );
  return rows.some((r) => r.locked);
}
