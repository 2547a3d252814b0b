// Read-ahead for the authorization endpoint: oidc-provider reads a request's rows one after another (the browser's
// session, the client's app, the user, the grant; on resume the interaction), a round trip each. The edge reads them
// all with one statement before it hands the request over (edge/routes.ts), and the provider's first read of each row
// in that request takes it from here (provider/adapter.ts, provider/clients.ts, accounts.ts), as if it had read it a
// few milliseconds earlier. Each row is handed out once: a second read, or a read after the request wrote the row, goes
// to the database. Rows nobody asks for (a cookie whose signature the provider then refuses) are dropped with the
// request.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppRow } from '../apps/queries.ts';
import type { Queryable } from '../platform/db.ts';
import type { UserProfileRow } from '../users/queries.ts';
import { hashId } from './payloads.ts';
import { READ_AHEAD_SQL, type PayloadWithConsumption } from './queries.ts';

/** What the request names: its session cookie, its interaction (resume) and its client (authorization). */
export interface ReadAheadKeys {
  sessionId?: string;
  interactionId?: string;
  clientId?: string;
}

type Rows = Map<string, unknown>;
const requestRows = new AsyncLocalStorage<Rows>();

interface ReadAheadRow {
  session_row: PayloadWithConsumption | null;
  interaction_row: PayloadWithConsumption | null;
  grant_row: PayloadWithConsumption | null;
  grant_id: string | null;
  client_id: string | null;
  account_id: string | null;
  app_row: (Omit<AppRow, 'created_at' | 'changed_at' | 'sequence'> & Record<string, unknown>) | null;
  account_row: (Omit<UserProfileRow, 'created_at' | 'changed_at' | 'sequence'> & Record<string, unknown>) | null;
}

/** Reads the request's rows with one statement; run the provider inside `within` to hand them to it. */
export function readAhead(db: Queryable) {
  return async (keys: ReadAheadKeys): Promise<Rows> => {
    const rows: Rows = new Map();
    if (!keys.sessionId && !keys.interactionId) return rows; // a first visit: nothing to read but the client
    const sessionId = keys.sessionId && hashId(keys.sessionId);
    const interactionId = keys.interactionId && hashId(keys.interactionId);
    const { rows: found } = await db.query<ReadAheadRow>(READ_AHEAD_SQL, [
      sessionId ?? null,
      interactionId ?? null,
      keys.clientId ?? null,
    ]);
    const row = found[0]!;
    if (sessionId) rows.set(`Session:${sessionId}`, revivePayload(row.session_row));
    if (interactionId) rows.set(`Interaction:${interactionId}`, revivePayload(row.interaction_row));
    if (row.grant_id) rows.set(`Grant:${hashId(row.grant_id)}`, revivePayload(row.grant_row));
    if (row.client_id) rows.set(`app:${row.client_id}`, row.app_row && reviveRow(row.app_row));
    if (row.account_id) rows.set(`user:${row.account_id}`, row.account_row && reviveRow(row.account_row));
    return rows;
  };
}

export function within<T>(rows: Rows, fn: () => T): T {
  return rows.size ? requestRows.run(rows, fn) : fn();
}

/**
 * The row read ahead for this key in the current request, once: `{ row }` (undefined: there is none), or undefined
 * when it was not read ahead. Keys: `<model>:<storage id>` for oidc_payloads, `app:<client ID>`, `user:<user ID>`.
 */
export function takeReadAhead<T>(key: string): { row: T | undefined } | undefined {
  const rows = requestRows.getStore();
  if (!rows?.has(key)) return undefined;
  const row = rows.get(key) as T | null;
  rows.delete(key);
  return { row: row ?? undefined };
}

/** A write of the row in this request: later reads must see it, so the read-ahead copy is dropped. */
export function forgetReadAhead(key: string): void {
  requestRows.getStore()?.delete(key);
}

// JSON carries timestamps as text and bigints as numbers: back to what the row reads return.
export function revivePayload(row: PayloadWithConsumption | null) {
  return row && { payload: row.payload, consumed_at: row.consumed_at ? new Date(row.consumed_at) : null };
}

function reviveRow<R extends Record<string, unknown>>(row: R) {
  return {
    ...row,
    created_at: new Date(row.created_at as string),
    changed_at: new Date(row.changed_at as string),
    sequence: String(row.sequence),
  };
}
