// The SQL of passkeys (migrations/0150_passkeys.sql): credentials and pending ceremony challenges.
import type { Queryable } from '../platform/db.ts';

export interface CredentialRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: string;
  backup_eligible: boolean;
  backup_state: boolean;
  transports: string[];
  name: string;
  created_at: Date;
}

const COLUMNS = `id, user_id, credential_id, public_key, sign_count, backup_eligible, backup_state, transports, name,
  created_at`;

export type ChallengePurpose = 'register' | 'sign_in' | 'second_factor';

export async function listCredentialsOfUser(db: Queryable, userId: string): Promise<CredentialRow[]> {
  const { rows } = await db.query<CredentialRow>(
    `SELECT ${COLUMNS} FROM webauthn_credentials WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
  return rows;
}

export async function findCredentialByCredentialId(db: Queryable, credentialId: string) {
  const { rows } = await db.query<CredentialRow>(
    `SELECT ${COLUMNS} FROM webauthn_credentials WHERE credential_id = $1`,
    [credentialId],
  );
  return rows[0];
}

export async function insertCredential(
  db: Queryable,
  row: Omit<CredentialRow, 'sign_count' | 'created_at'> & { sign_count: number },
): Promise<void> {
  await db.query(
    `INSERT INTO webauthn_credentials
       (id, user_id, credential_id, public_key, sign_count, backup_eligible, backup_state, transports, name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      row.id,
      row.user_id,
      row.credential_id,
      row.public_key,
      row.sign_count,
      row.backup_eligible,
      row.backup_state,
      row.transports,
      row.name,
    ],
  );
}

/** After a verified assertion: the authenticator's counter and backup state (WebAuthn §6.1.1, §6.1.3). */
export async function recordCredentialUse(
  db: Queryable,
  id: string,
  use: { signCount: number; backupState: boolean },
): Promise<void> {
  await db.query(
    `UPDATE webauthn_credentials SET sign_count = $2, backup_state = $3, last_used_at = now() WHERE id = $1`,
    [id, use.signCount, use.backupState],
  );
}

export async function deleteCredential(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM webauthn_credentials WHERE user_id = $1 AND id = $2 RETURNING id', [
    userId,
    id,
  ]);
  return rows.length > 0;
}

/** Stores the browser's pending challenge, replacing an earlier one; expired challenges of anyone go too. */
export async function putChallenge(
  db: Queryable,
  c: { purpose: ChallengePurpose; binding: string; challenge: string; userId: string | null; ttlSeconds: number },
): Promise<void> {
  await db.query('DELETE FROM webauthn_challenges WHERE expires_at < now()');
  await db.query(
    `INSERT INTO webauthn_challenges (purpose, binding, challenge, user_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (purpose, binding) DO UPDATE
       SET challenge = excluded.challenge, user_id = excluded.user_id, expires_at = excluded.expires_at`,
    [c.purpose, c.binding, c.challenge, c.userId, c.ttlSeconds],
  );
}

/** Takes the browser's unexpired challenge: whoever deletes it first uses it, so it is used once. */
export async function takeChallenge(
  db: Queryable,
  purpose: ChallengePurpose,
  binding: string,
): Promise<{ challenge: string; user_id: string | null } | undefined> {
  const { rows } = await db.query<{ challenge: string; user_id: string | null }>(
    `DELETE FROM webauthn_challenges WHERE purpose = $1 AND binding = $2 RETURNING challenge, user_id,
       expires_at > now() AS fresh`,
    [purpose, binding],
  );
  const row = rows[0] as { challenge: string; user_id: string | null; fresh: boolean } | undefined;
  return row?.fresh ? { challenge: row.challenge, user_id: row.user_id } : undefined;
}
