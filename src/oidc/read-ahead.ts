// Read-ahead for the authorization endpoint: oidc-provider reads a request's rows one after another (the browser's
// session, the client's app, the user, the grant; on resume the interaction), a round trip each. The edge reads them
// all with one statement and hands them to the request's scope before it hands the request over (edge/routes.ts,
// platform/request-scope.ts), and the provider's first read of each row in that request takes it from there
// (provider/adapter.ts, provider/clients.ts, accounts.ts), as if it had read it a few milliseconds earlier. Each row
// is handed out once: a second read, or a read after the request wrote the row, goes to the database. Rows nobody
// asks for (a cookie whose signature the provider then refuses) are dropped with the request. The login pages hand
// their interaction ahead the same way (login/page-read-ahead.ts, login/password-read-ahead.ts).
import type { AppRow } from '../apps/queries.ts';
import type { Queryable } from '../platform/db.ts';
import { scopeKey, scoped, type Scoped } from '../platform/request-scope.ts';
import type { UserProfileRow } from '../users/queries.ts';
import type { FoundPayload } from './payload-store.ts';
import { hashId } from './payloads.ts';
import { READ_AHEAD_SQL, type PayloadWithConsumption } from './queries.ts';

/** oidc-provider's stored rows by `<model>:<storage id>` (provider/adapter.ts). */
export const PAYLOAD_AHEAD = scopeKey<FoundPayload>('oidc:payload');
/** The active app of a client ID (provider/clients.ts). */
export const APP_AHEAD = scopeKey<AppRow>('oidc:app');
/** A user's profile by user ID (accounts.ts). */
export const USER_AHEAD = scopeKey<UserProfileRow>('oidc:user');

/** What the request names: its session cookie, its interaction (resume) and its client (authorization). */
export interface ReadAheadKeys {
  sessionId?: string;
  interactionId?: string;
  clientId?: string;
}

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

/** Reads the request's rows with one statement, to be handed to the provider through the request's scope. */
export function readAhead(db: Queryable) {
  return async (keys: ReadAheadKeys): Promise<Scoped[]> => {
    if (!keys.sessionId && !keys.interactionId) return []; // a first visit: nothing to read but the client
    const sessionId = keys.sessionId && hashId(keys.sessionId);
    const interactionId = keys.interactionId && hashId(keys.interactionId);
    const { rows: found } = await db.query<ReadAheadRow>(READ_AHEAD_SQL, [
      sessionId ?? null,
      interactionId ?? null,
      keys.clientId ?? null,
    ]);
    const row = found[0]!;
    const rows: Scoped[] = [];
    if (sessionId) rows.push(scoped(PAYLOAD_AHEAD, revivePayload(row.session_row), `Session:${sessionId}`));
    if (interactionId)
      rows.push(scoped(PAYLOAD_AHEAD, revivePayload(row.interaction_row), `Interaction:${interactionId}`));
    if (row.grant_id) rows.push(scoped(PAYLOAD_AHEAD, revivePayload(row.grant_row), `Grant:${hashId(row.grant_id)}`));
    if (row.client_id) rows.push(scoped(APP_AHEAD, row.app_row ? reviveRow(row.app_row) : undefined, row.client_id));
    if (row.account_id)
      rows.push(scoped(USER_AHEAD, row.account_row ? reviveRow(row.account_row) : undefined, row.account_id));
    return rows;
  };
}

// JSON carries timestamps as text and bigints as numbers: back to what the row reads return.
export function revivePayload(row: PayloadWithConsumption | null): FoundPayload | undefined {
  return row ? { payload: row.payload, consumed_at: row.consumed_at ? new Date(row.consumed_at) : null } : undefined;
}

function reviveRow<R extends Record<string, unknown>>(row: R) {
  return {
    ...row,
    created_at: new Date(row.created_at as string),
    changed_at: new Date(row.changed_at as string),
    sequence: String(row.sequence),
  };
}
