// Write-behind for oidc-provider's storage (issue 18): within one provider request the library saves its rows one
// after another (the interaction deleted, the grant, the code, the session on resume), a round trip each. Inside a
// unit of work (`unitOfWork`, around every provider request: plugin.ts) the adapter queues those saves and deletes
// here, and the unit writes them with one statement before the response leaves, so no one outside the request can
// tell: the browser and the client see every row the response names. Reads in the request see the queued rows (read
// your writes). Operations that must happen in place (consume, revoke by grant, the replay claim, a read by uid)
// write the queue first, so rows reach the database in the order the library meant. Statements of our own that
// settle with the request (the lockout's attempt given back after a success: lockout/queries.ts) ride along in the
// same statement as extra CTEs. The login pages run in units too (login/routes.ts), written before their answer is
// sent. Without a unit every write goes at once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Queryable } from '../platform/db.ts';
import type { PayloadRow } from './payload-store.ts';

/** Data-modifying CTEs of our own (`name AS (...)`, comma-separated), written with the unit: `sql(param)` places
 *  each value as a parameter. Their names must differ from those of the unit's other writes. */
export type SideWrite = (param: (value: unknown) => string) => string;

interface Unit {
  /** By `<model>:<storage id>`; null: deleted. One entry per row, the last operation wins. */
  rows: Map<string, PayloadRow | null>;
  side: SideWrite[];
}

const units = new AsyncLocalStorage<Unit>();

/** Runs fn with a unit of work and writes what it queued when fn is done, failed or not. */
export async function unitOfWork<T>(db: Queryable, fn: () => Promise<T>): Promise<T> {
  const unit: Unit = { rows: new Map(), side: [] };
  return units.run(unit, async () => {
    try {
      return await fn();
    } finally {
      await write(db, unit);
    }
  });
}

/** Queues the save or (row null) delete of a row; false when no unit runs and the caller must write it now. */
export function queueRow(model: string, id: string, row: PayloadRow | null): boolean {
  const unit = units.getStore();
  unit?.rows.set(`${model}:${id}`, row);
  return unit !== undefined;
}

/** Queues one of our own writes with the unit; false when no unit runs and the caller must write it now. */
export function queueSideWrite(sql: SideWrite): boolean {
  const unit = units.getStore();
  unit?.side.push(sql);
  return unit !== undefined;
}

/** The queued state of a row: `{ row }` (null: deleted), or undefined when nothing is queued for it. */
export function queuedRow(model: string, id: string): { row: PayloadRow | null } | undefined {
  const rows = units.getStore()?.rows;
  const key = `${model}:${id}`;
  return rows?.has(key) ? { row: rows.get(key)! } : undefined;
}

/** Writes the queue now: before an operation that must see it in the database. */
export async function writeQueued(db: Queryable): Promise<void> {
  const unit = units.getStore();
  if (unit) await write(db, unit);
}

async function write(db: Queryable, unit: Unit): Promise<void> {
  if (!unit.rows.size && !unit.side.length) return;
  const saved: PayloadRow[] = [];
  const deleted: string[][] = [[], []];
  for (const [key, row] of unit.rows) {
    if (row) saved.push(row);
    else {
      const colon = key.indexOf(':');
      deleted[0]!.push(key.slice(0, colon));
      deleted[1]!.push(key.slice(colon + 1));
    }
  }
  const side = unit.side;
  unit.rows = new Map();
  unit.side = [];
  const params: unknown[] = [
    ...deleted,
    saved.map((r) => r.model),
    saved.map((r) => r.id),
    saved.map((r) => r.payload),
    saved.map((r) => r.grantId),
    saved.map((r) => r.uid),
    saved.map((r) => r.ttl),
  ];
  const param = (value: unknown) => `$${params.push(value)}`;
  const extra = side.map((sql) => `${sql(param)},\n`).join('');
  await db.query(`WITH ${extra}${WRITE_SQL}`, params);
}

// A row is either deleted or saved in one unit (one entry per row), so the two never meet on the same row.
const WRITE_SQL = `
  gone AS (
    DELETE FROM oidc_payloads p USING unnest($1::text[], $2::text[]) AS d(model, id)
    WHERE p.model = d.model AND p.id = d.id)
  INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, expires_at)
  SELECT model, id, payload, grant_id, uid,
         CASE WHEN ttl IS NULL THEN NULL ELSE now() + make_interval(secs => ttl) END
  FROM unnest($3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::int[])
    AS s(model, id, payload, grant_id, uid, ttl)
  ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE
    SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
        expires_at = EXCLUDED.expires_at, updated_at = clock_timestamp()`;
