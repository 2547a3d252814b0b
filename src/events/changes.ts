// The history of an object from the event log (ListUserChanges, ListAppChanges, ListOrgChanges, ListProjectChanges):
// its events with their editors, a page at a time from a sequence on, as ZITADEL's ChangeQuery asks
// (events_aggregate_idx serves every read).
import type { Queryable } from '../platform/db.ts';
import type { AggregateType } from './types.ts';

export interface ChangeRow {
  sequence: string;
  event_type: string;
  created_at: Date;
  creator: string;
  resource_owner: string;
  /** The editor, while it exists: its display name (or a machine's name) and login name. */
  editor_name: string | null;
  editor_login_name: string | null;
}

export interface ChangePage {
  /** Events after this sequence (ascending) or before it (descending; 0: from the newest). */
  sequence: bigint;
  limit: number;
  asc: boolean;
}

/** The editor of an event `e`, while it exists (ChangeRow's editor columns), for every reader of the log. */
export const EDITOR_COLUMNS = `coalesce(u.display_name, u.machine_name) AS editor_name,
            u.user_name || '@' || o.primary_domain AS editor_login_name`;
export const EDITOR_JOIN = 'LEFT JOIN users u ON u.id = e.creator LEFT JOIN orgs o ON o.id = u.org_id';

export async function listChanges(
  db: Queryable,
  aggregate: { type: AggregateType; id: string; appId?: string },
  page: ChangePage,
): Promise<ChangeRow[]> {
  const params: unknown[] = [aggregate.type, aggregate.id, page.sequence.toString(), page.limit];
  const app = aggregate.appId === undefined ? '' : `AND e.payload->>'appId' = $${params.push(aggregate.appId)}`;
  const from = page.asc ? 'e.sequence > $3::bigint' : '($3::bigint = 0 OR e.sequence < $3::bigint)';
  const { rows } = await db.query<ChangeRow>(
    `SELECT e.sequence, e.event_type, e.created_at, e.creator, e.resource_owner, ${EDITOR_COLUMNS}
     FROM events e ${EDITOR_JOIN}
     WHERE e.aggregate_type = $1 AND e.aggregate_id = $2 AND ${from} ${app}
     ORDER BY e.sequence ${page.asc ? 'ASC' : 'DESC'} LIMIT $4`,
    params,
  );
  return rows;
}
