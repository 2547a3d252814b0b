// SQL of factors/: the kinds a user has (users.factor_kinds), TOTP authenticators and recovery codes.
import type { Queryable } from '../platform/db.ts';

/** Adds or removes a kind from the user's list, in the transaction that adds or removes the factor; returns the
 *  kinds the user has then. */
export async function setFactorKind(tx: Queryable, userId: string, kind: string, present: boolean): Promise<string[]> {
  const { rows } = await tx.query<{ factor_kinds: string[] }>(
    present
      ? 'UPDATE users SET factor_kinds = array_append(array_remove(factor_kinds, $2), $2) WHERE id = $1 ' +
          'RETURNING factor_kinds'
      : 'UPDATE users SET factor_kinds = array_remove(factor_kinds, $2) WHERE id = $1 RETURNING factor_kinds',
    [userId, kind],
  );
  return rows[0]?.factor_kinds ?? [];
}

export async function findFactorKinds(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ factor_kinds: string[] }>('SELECT factor_kinds FROM users WHERE id = $1', [userId]);
  return rows[0]?.factor_kinds ?? [];
}

export interface TotpRow {
  sealed_secret: string;
  confirmed_at: Date | null;
  last_step: string;
}

export async function findTotp(db: Queryable, userId: string): Promise<TotpRow | undefined> {
  const { rows } = await db.query<TotpRow>(
    'SELECT sealed_secret, confirmed_at, last_step FROM user_totp WHERE user_id = $1',
    [userId],
  );
  return rows[0];
}

/** A new, unconfirmed authenticator; replaces an unconfirmed one, never a confirmed one (false then). */
export async function insertPendingTotp(tx: Queryable, userId: string, sealedSecret: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO user_totp (user_id, sealed_secret) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET sealed_secret = $2, created_at = now(), last_step = 0
       WHERE user_totp.confirmed_at IS NULL`,
    [userId, sealedSecret],
  );
  return rowCount === 1;
}

/** Stores a confirmed authenticator whose first code had time step `step`. */
export async function confirmTotp(tx: Queryable, userId: string, sealedSecret: string, step: number): Promise<void> {
  await tx.query(
    `INSERT INTO user_totp (user_id, sealed_secret, confirmed_at, last_step) VALUES ($1, $2, now(), $3)
     ON CONFLICT (user_id) DO UPDATE SET sealed_secret = $2, confirmed_at = now(), last_step = $3`,
    [userId, sealedSecret, step],
  );
}

/** Records the step of an accepted code, only when it is later than the last one: false means a replay (or a
 *  parallel use of the same code), which is refused (RFC 6238 §5.2). */
export async function advanceTotpStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE user_totp SET last_step = $2 WHERE user_id = $1 AND confirmed_at IS NOT NULL AND last_step < $2',
    [userId, step],
  );
  return rowCount === 1;
}

export async function deleteTotp(tx: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM user_totp WHERE user_id = $1', [userId]);
  return rowCount === 1;
}

export async function replaceRecoveryCodes(tx: Queryable, userId: string, hashes: string[]): Promise<void> {
  await tx.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
  if (hashes.length)
    await tx.query('INSERT INTO user_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])', [
      userId,
      hashes,
    ]);
}

/** Uses a code: true when it existed (and is gone now), atomically, so a code works once. */
export async function consumeRecoveryCode(db: Queryable, userId: string, hash: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM user_recovery_codes WHERE user_id = $1 AND code_hash = $2', [
    userId,
    hash,
  ]);
  return rowCount === 1;
}

export async function countRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.n ?? 0;
}
