// Write-behind for oidc-provider's storage: within one provider request the library saves its rows one after another
// (the interaction deleted, the grant, the code, the session on resume), a round trip each. Inside a unit of work
// (`unitOfWork`, around every provider request: plugin.ts) the adapter holds those saves and deletes back under
// PAYLOAD_ROWS (platform/request-scope.ts), and the unit writes them with one statement before the response leaves, so
// no one outside the request can tell: the browser and the client see every row the response names. Reads in the
// request see the held rows (read your writes). Operations that must happen in place (consume, revoke by grant, the
// replay claim, a read by uid) write the held rows first, so rows reach the database in the order the library meant.
// Writes of other domains that settle with the request (the lockout's attempt given back after a success:
// lockout/service.ts) ride along in the same statement as extra CTEs. The login pages run in units too
// (login/routes.ts), written before their answer is sent. Without a unit every write goes at once.
import type { Db } from '../platform/db.ts';
import {
  scopeKey,
  unitOfWork as platformUnitOfWork,
  type DeferredWrite,
  type Held,
} from '../platform/request-scope.ts';
import type { PayloadRow } from './payload-store.ts';

/** oidc-provider's rows a unit of work holds, by `<model>:<storage id>`. */
export const PAYLOAD_ROWS = scopeKey<PayloadRow>('oidc:payload-row');

/** What a unit writes with: plain statements, and those planned for their values (see send). */
type WriteDb = Pick<Db, 'query' | 'queryPlanned'>;

/** Runs fn with a unit of work and writes what it held when fn is done, failed or not. */
export function unitOfWork<T>(db: WriteDb, fn: () => Promise<T>): Promise<T> {
  return platformUnitOfWork((held) => write(db, held), fn);
}

function write(db: WriteDb, held: Held): Promise<void> {
  const rows = held.rows(PAYLOAD_ROWS);
  // Units with writes of their own (a login step) go alone; the rest share statements.
  return held.writes.length ? send(db, rows, held.writes) : shared(db, rows);
}

interface Waiting {
  rows: Map<string, PayloadRow | null>;
  resolve(): void;
  reject(error: unknown): void;
}
const waiting = new WeakMap<WriteDb, Waiting[]>();
const MAX_SHARED = 64;

/**
 * The writes of the units that end in the same event-loop turn go as one statement, as the token lookups do
 * (platform/batch.ts): under load the authorization requests of many browsers end together. Each unit's rows are its
 * own (a row two units write, e.g. the session of one browser's parallel requests, takes the later unit's). A failed
 * shared statement is tried again per unit, so one unit's failure is its own.
 */
function shared(db: WriteDb, rows: Map<string, PayloadRow | null>): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue = waiting.get(db) ?? [];
    waiting.set(db, queue);
    queue.push({ rows, resolve, reject });
    if (queue.length === 1) setImmediate(() => flushShared(db));
  });
}

function flushShared(db: WriteDb): void {
  const queue = waiting.get(db)!;
  waiting.delete(db);
  for (let from = 0; from < queue.length; from += MAX_SHARED) {
    const batch = queue.slice(from, from + MAX_SHARED);
    const merged = new Map(batch.flatMap((w) => [...w.rows]));
    send(db, merged, []).then(
      () => {
        for (const w of batch) w.resolve();
      },
      async (error: unknown) => {
        if (batch.length === 1) return batch[0]!.reject(error);
        for (const w of batch) await send(db, w.rows, []).then(w.resolve, w.reject);
      },
    );
  }
}

async function send(db: WriteDb, rows: Map<string, PayloadRow | null>, side: DeferredWrite[]): Promise<void> {
  const saved: PayloadRow[] = [];
  const deleted = { models: [] as string[], ids: [] as string[] };
  for (const [key, row] of rows) {
    if (row) saved.push(row);
    else {
      const colon = key.indexOf(':');
      deleted.models.push(key.slice(0, colon));
      deleted.ids.push(key.slice(colon + 1));
    }
  }
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const ctes = side.map((sql) => sql(param));
  if (deleted.ids.length) ctes.push(deleteRows(param(deleted.models), param(deleted.ids)));
  const columns = [
    saved.map((r) => r.model),
    saved.map((r) => r.id),
    saved.map((r) => r.payload),
    saved.map((r) => r.grantId),
    saved.map((r) => r.uid),
    saved.map((r) => r.ttl),
  ].map(param);
  const text = `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}${upsertRows(columns)}`;
  // A delete joins the batch's keys to the table, and a plan PostgreSQL keeps for a named statement is made with the
  // table's statistics of that time: one made while the table was small (a new deployment, the first requests after a
  // start) hashes the keys and reads the whole table, and keeps doing so when it holds a million rows until an ANALYZE
  // replaces it (never, with autovacuum off: a login then took 20 ms of PostgreSQL's CPU instead of 4). Planned for its
  // values, the delete sees the table's current size and the number of keys, and reads their index entries. Writes
  // without deletes have one plan (an insert with its conflict index) and stay prepared.
  await (deleted.ids.length ? db.queryPlanned(text, params) : db.query(text, params));
}

// A row is either deleted or saved in one statement (one entry per row), so the two never meet on the same row.
const deleteRows = (models: string, ids: string) => `
  gone AS (
    DELETE FROM oidc_payloads p USING unnest(${models}::text[], ${ids}::text[]) AS d(model, id)
    WHERE p.model = d.model AND p.id = d.id)`;

const upsertRows = ([models, ids, payloads, grantIds, uids, ttls]: string[]) => `
  INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, expires_at)
  SELECT model, id, payload, grant_id, uid,
         CASE WHEN ttl IS NULL THEN NULL ELSE now() + make_interval(secs => ttl) END
  FROM unnest(${models}::text[], ${ids}::text[], ${payloads}::jsonb[], ${grantIds}::text[], ${uids}::text[],
              ${ttls}::int[]) AS s(model, id, payload, grant_id, uid, ttl)
  ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE
    SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
        expires_at = EXCLUDED.expires_at, updated_at = clock_timestamp()`;
