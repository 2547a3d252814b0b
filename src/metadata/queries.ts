import type { Queryable } from '../platform/db.ts';

export interface MetadataRow {
  user_id: string;
  key: string;
  value: Uint8Array;
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

const COLUMNS = 'user_id, key, value, created_at, changed_at, sequence';

export async function upsertMetadata(
  tx: Queryable,
  userId: string,
  entries: { key: string; value: Uint8Array }[],
  sequence: string,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO user_metadata (user_id, key, value, sequence, created_at, changed_at)
     SELECT $1, k, v, $4, $5, $5 FROM unnest($2::text[], $3::bytea[]) AS m(k, v)
     ON CONFLICT ON CONSTRAINT user_metadata_pkey DO UPDATE
       SET value = EXCLUDED.value, sequence = EXCLUDED.sequence, changed_at = EXCLUDED.changed_at`,
    [userId, entries.map((e) => e.key), entries.map((e) => Buffer.from(e.value)), sequence, at],
  );
}

export async function findMetadata(db: Queryable, userId: string, key: string): Promise<MetadataRow | undefined> {
  const { rows } = await db.query<MetadataRow>(`SELECT ${COLUMNS} FROM user_metadata WHERE user_id = $1 AND key = $2`, [
    userId,
    key,
  ]);
  return rows[0];
}

/** Every entry of the user, for the claim urn:zitadel:iam:user:metadata, by the primary key's user prefix
 *  (test/grants/claim-plans.test.ts). */
export const ALL_METADATA_SQL = 'SELECT key, value FROM user_metadata WHERE user_id = $1 ORDER BY key';

export async function findAllMetadata(db: Queryable, userId: string): Promise<{ key: string; value: Uint8Array }[]> {
  const { rows } = await db.query<{ key: string; value: Uint8Array }>(ALL_METADATA_SQL, [userId]);
  return rows;
}

export async function deleteMetadata(tx: Queryable, userId: string, key: string): Promise<void> {
  await tx.query('DELETE FROM user_metadata WHERE user_id = $1 AND key = $2', [userId, key]);
}
