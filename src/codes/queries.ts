// SQL of one-time codes (migrations/0090_accounts.sql user_codes).
import type { Queryable } from '../platform/db.ts';

export type CodePurpose = 'email_verification' | 'password_reset';

export interface CodeRow {
  id: string;
  user_id: string;
  code_hash: string;
  email: string | null;
  attempts: number;
}

/** A new code replaces the user's earlier unused ones of the same purpose: one code is valid at a time. The
 *  replaced ones are marked used, not deleted, since the hourly limit counts them; a day later they go. */
export async function replaceCode(
  tx: Queryable,
  code: { id: string; userId: string; purpose: CodePurpose; codeHash: string; email: string | null; ttl: number },
): Promise<void> {
  await tx.query(`UPDATE user_codes SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`, [
    code.userId,
    code.purpose,
  ]);
  await tx.query("DELETE FROM user_codes WHERE user_id = $1 AND created_at < now() - interval '1 day'", [code.userId]);
  await tx.query(
    `INSERT INTO user_codes (id, user_id, purpose, code_hash, email, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [code.id, code.userId, code.purpose, code.codeHash, code.email, code.ttl],
  );
}

/** The user's valid code of the purpose, locked for the check (concurrent tries of one code serialise). */
export async function lockValidCode(tx: Queryable, userId: string, purpose: CodePurpose): Promise<CodeRow | undefined> {
  const { rows } = await tx.query<CodeRow>(
    `SELECT id, user_id, code_hash, email, attempts FROM user_codes
     WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
     ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [userId, purpose],
  );
  return rows[0];
}

export async function countFailedTry(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE user_codes SET attempts = attempts + 1 WHERE id = $1', [id]);
}

export async function markCodeUsed(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE user_codes SET used_at = now() WHERE id = $1', [id]);
}

/** Codes of the purpose issued to the user in the last hour, used or not: the per-account send limit. */
export async function codesSentLastHour(db: Queryable, userId: string, purpose: CodePurpose): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM user_codes
     WHERE user_id = $1 AND purpose = $2 AND created_at > now() - interval '1 hour'`,
    [userId, purpose],
  );
  return rows[0]!.n;
}
