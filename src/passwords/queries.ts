// SQL of passwords/: the policy row, the "change required" flag (read with the user, users/queries.ts), and ending
// a user's other sessions.
import type { Queryable } from '../platform/db.ts';
import { END_CONSOLE_SESSIONS_OF_USER } from '../users/console-sessions.ts';
import type { PasswordPolicy } from './policy.ts';

export interface PolicyRow extends PasswordPolicy {
  createdAt: Date;
  changedAt: Date;
  sequence: string;
}

export async function findPasswordPolicy(db: Queryable): Promise<PolicyRow | undefined> {
  const { rows } = await db.query<PolicyRow>(
    `SELECT min_length AS "minLength", has_uppercase AS "hasUppercase", has_lowercase AS "hasLowercase",
            has_number AS "hasNumber", has_symbol AS "hasSymbol", created_at AS "createdAt",
            changed_at AS "changedAt", sequence
     FROM password_complexity_policy`,
  );
  return rows[0];
}

/** Held until the transaction ends, so an update compares with a policy no other update is changing (the singleton
 *  row may not exist yet, so FOR UPDATE cannot lock it). Reads are not blocked. */
export async function lockPasswordPolicy(tx: Queryable): Promise<void> {
  await tx.query('LOCK TABLE password_complexity_policy IN SHARE ROW EXCLUSIVE MODE');
}

export async function upsertPasswordPolicy(
  tx: Queryable,
  policy: PasswordPolicy,
  sequence: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO password_complexity_policy
       (min_length, has_uppercase, has_lowercase, has_number, has_symbol, created_at, changed_at, sequence)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
     ON CONFLICT (singleton) DO UPDATE SET min_length = $1, has_uppercase = $2, has_lowercase = $3,
       has_number = $4, has_symbol = $5, changed_at = $6, sequence = $7`,
    [policy.minLength, policy.hasUppercase, policy.hasLowercase, policy.hasNumber, policy.hasSymbol, at, sequence],
  );
}

export async function setPasswordChangeRequired(tx: Queryable, userId: string, required: boolean): Promise<void> {
  await tx.query('UPDATE users SET password_change_required = $2 WHERE id = $1', [userId, required]);
}

export async function storePasswordHash(
  tx: Queryable,
  userId: string,
  passwordHash: string,
  changeRequired: boolean,
  sequence: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `UPDATE users SET password_hash = $2, password_change_required = $3, sequence = $4, changed_at = $5
     WHERE id = $1`,
    [userId, passwordHash, changeRequired, sequence, at],
  );
}

/** Ends the user's sessions but the one of `keepSessionUid` (the browser that changed the password) and revokes their
 *  refresh tokens: whoever knew the old password is signed out everywhere else. The rows are oidc_payloads
 *  (src/oidc/payloads.ts), by the account they belong to, and every console session of the user
 *  (users/console-sessions.ts), so every session is revocable on the server. */
export async function endOtherSessions(tx: Queryable, userId: string, keepSessionUid?: string): Promise<number> {
  const { rowCount } = await tx.query(END_OTHER_SESSIONS, [userId, keepSessionUid ?? null]);
  return rowCount ?? 0;
}

/** Reads only the user's rows by index (oidc_payloads_account_idx, whose predicate it repeats), as
 *  test/users/artifact-plans.test.ts checks. */
export const END_OTHER_SESSIONS = `
  WITH ${END_CONSOLE_SESSIONS_OF_USER}
  DELETE FROM oidc_payloads WHERE payload ? 'accountId' AND payload->>'accountId' = $1
    AND (model = 'RefreshToken' OR (model = 'Session' AND uid IS DISTINCT FROM $2))`;
