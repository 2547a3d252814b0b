// The rows oidc-provider stores (codes, tokens, sessions, grants, interactions in oidc_payloads), as its adapter reads
// and writes them (provider/adapter.ts), and the background sweep of expired ones. Split from queries.ts, which keeps
// the statements of the hot paths that join these rows to users, orgs and apps. Ids are storage ids (payloads.ts
// hashId); payloads are stored payloads (storedPayload).
import type { AdapterPayload } from 'oidc-provider';
import type { Db, Queryable } from '../platform/db.ts';

/** A one-time id (ReplayDetection): inserted, or taken over once expired, atomically; false when it is still used. */
export async function claimPayload(
  db: Queryable,
  model: string,
  id: string,
  payload: AdapterPayload,
  ttl: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO oidc_payloads (model, id, payload, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))
     ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE
       SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at
       WHERE oidc_payloads.expires_at <= now()`,
    [model, id, payload, ttl],
  );
  return rowCount === 1;
}

export interface PayloadRow {
  model: string;
  id: string;
  payload: unknown;
  grantId: string | null;
  uid: string | null;
  /** Seconds from now; null never expires. */
  ttl: number | null;
}

export async function upsertPayload(db: Queryable, row: PayloadRow): Promise<void> {
  await db.query(
    `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, expires_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END)
     ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE
       SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
           expires_at = EXCLUDED.expires_at, updated_at = clock_timestamp()`,
    [row.model, row.id, row.payload, row.grantId, row.uid, row.ttl],
  );
}

/** A stored payload and when it was consumed, as the adapter reads it. */
export interface FoundPayload {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

export async function findPayload(db: Queryable, model: string, id: string): Promise<FoundPayload | undefined> {
  const { rows } = await db.query<FoundPayload>(
    `SELECT payload, consumed_at FROM oidc_payloads
     WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
    [model, id],
  );
  return rows[0];
}

/** The newest unexpired row with this uid (a session id rotation writes a new row with the same uid). */
export async function findPayloadByUid(db: Queryable, model: string, uid: string): Promise<AdapterPayload | undefined> {
  const { rows } = await db.query<{ payload: AdapterPayload }>(
    `SELECT payload FROM oidc_payloads
     WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())
     ORDER BY updated_at DESC LIMIT 1`,
    [model, uid],
  );
  return rows[0]?.payload;
}

/** Marks the row consumed; false when it was consumed before (or is gone). Atomic: codes are single-use. */
export async function consumePayload(db: Queryable, model: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL',
    [model, id],
  );
  return rowCount === 1;
}

export async function findConsumption(
  db: Queryable,
  model: string,
  id: string,
): Promise<{ grant_id: string | null; consumed_at: Date | null } | undefined> {
  const { rows } = await db.query<{ grant_id: string | null; consumed_at: Date | null }>(
    'SELECT grant_id, consumed_at FROM oidc_payloads WHERE model = $1 AND id = $2',
    [model, id],
  );
  return rows[0];
}

/** Every row of a grant except those of one model (a replayed code's tokens and the grant itself). */
export async function deleteGrantRowsExcept(db: Queryable, grantId: string, model: string): Promise<void> {
  await db.query('DELETE FROM oidc_payloads WHERE grant_id = $1 AND model <> $2', [grantId, model]);
}

export async function deletePayload(db: Queryable, model: string, id: string): Promise<void> {
  await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [model, id]);
}

export async function deletePayloadsOfGrant(db: Queryable, model: string, grantId: string): Promise<void> {
  await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2', [model, grantId]);
}

// One batch of the sweep: up to $2 rows expired a minute ago or more, in expiry order from $1 on, by their row
// addresses (a TID scan, no primary-key lookup per row). A row updated since it was chosen has a new address and
// stays; the outer condition holds the expiry against a concurrent change too.
const SWEEP_BATCH = `
  WITH gone AS (
    DELETE FROM oidc_payloads
    WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM oidc_payloads
        WHERE expires_at >= $1::timestamptz AND expires_at < now() - interval '1 minute'
        ORDER BY expires_at LIMIT $2))
      AND expires_at < now() - interval '1 minute'
    RETURNING expires_at)
  SELECT count(*)::int AS removed, max(expires_at)::text AS last FROM gone`;

/** After each batch the sweep waits this many times the batch's own duration (sweepExpired). */
const PAUSE_PER_BATCH = 7;

/**
 * Deletes expired rows in batches until none are left or `until` (epoch ms) has passed; returns how many went. A
 * backlog (5 million expired rows of 10 million) is worked through while requests keep their latency: after each batch
 * the sweep pauses seven times as long as the batch took, so it holds one connection at most an eighth of the time.
 * Measured at that size (docs/performance.md, "The sweep while it runs"): with a pause of three times, two of four
 * scenarios' median p99 at 32 connections rose 20%; with seven, none rose more than 6%, and the sweep still deletes
 * some 14,000 rows a second under full load, more than the token endpoint can create. Each batch starts where the
 * previous one ended: deleted rows stay in the expiry index until VACUUM, and starting from the oldest every time would
 * walk over all of them again.
 */
export async function sweepExpired(db: Db, options: { until: number; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let total = 0;
  let from = '-infinity';
  while (Date.now() < options.until) {
    const started = performance.now();
    const { rows } = await db.query<{ removed: number; last: string | null }>(SWEEP_BATCH, [from, batchSize]);
    total += rows[0]!.removed;
    if (rows[0]!.removed < batchSize || !rows[0]!.last) break;
    from = rows[0]!.last;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_PER_BATCH * (performance.now() - started)));
  }
  return total;
}
