// The event log as an audit trail (AdminService.ListEvents, ZITADEL's filters; the console's audit page): events in
// sequence order from a sequence on, newest first unless ascending, narrowed to one org's objects, one editor, one
// object, some aggregate and event types, a time range. Each of the first three has an index (migrations/
// 0131_audit.sql), so that a rare org, editor or object is not looked for by walking the whole log from its newest
// event (test/management/list-plans.test.ts). Planned for its values on every call (Db.queryPlanned): prepared, it
// could get a generic plan after five runs, which, blind to the org asked for, walks the log from its newest event and
// reads all of it for a small org beside a big one.
import type { JsonObject } from '@bufbuild/protobuf';
import type { Db } from '../platform/db.ts';
import { Conditions } from '../platform/search.ts';
import { EDITOR_COLUMNS, EDITOR_JOIN, type ChangeRow } from './changes.ts';

export interface EventFilter {
  /** The org whose objects' events are listed (events.resource_owner). */
  resourceOwner?: string;
  /** The user who did it (events.creator). */
  editorId?: string;
  aggregateId?: string;
  aggregateTypes?: string[];
  eventTypes?: string[];
  /** Events created at or after `since` and before `until`. */
  since?: Date;
  until?: Date;
}

export interface EventPage {
  /** Only events after this sequence (ZITADEL's `sequence`, in either order; 0: all). */
  after: bigint;
  limit: number;
  asc: boolean;
}

export interface EventRow extends ChangeRow {
  aggregate_type: string;
  aggregate_id: string;
  payload: JsonObject;
}

export async function listEvents(db: Db, filter: EventFilter, page: EventPage): Promise<EventRow[]> {
  const where = new Conditions();
  if (filter.resourceOwner) where.add('e.resource_owner = ?', filter.resourceOwner);
  if (filter.editorId) where.add('e.creator = ?', filter.editorId);
  if (filter.aggregateId) where.add('e.aggregate_id = ?', filter.aggregateId);
  if (filter.aggregateTypes?.length) where.add('e.aggregate_type = ANY (?::text[])', filter.aggregateTypes);
  if (filter.eventTypes?.length) where.add('e.event_type = ANY (?::text[])', filter.eventTypes);
  if (filter.since) where.add('e.created_at >= ?', filter.since);
  if (filter.until) where.add('e.created_at < ?', filter.until);
  if (page.after > 0n) where.add('e.sequence > ?::bigint', page.after.toString());
  const limit = where.param(page.limit);
  const { rows } = await db.queryPlanned<EventRow>(
    `SELECT e.sequence, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, e.created_at, e.creator,
            e.resource_owner, ${EDITOR_COLUMNS}
     FROM events e ${EDITOR_JOIN} ${where.sql}
     ORDER BY e.sequence ${page.asc ? 'ASC' : 'DESC'} LIMIT ${limit}`,
    where.params,
  );
  return rows;
}
