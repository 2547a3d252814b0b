// The console's audit page (issue 22 "Audit: the event log, filterable by object and by who did it, paged"): the
// log newest first, one page before a sequence (keyset paging: a page deep in ten million events costs what the
// first does), narrowed to the objects of one org (what an org owner may see), one object, or one editor. Each
// narrowing has its index (events_aggregate_idx, and migrations/0131_audit.sql's), so that a rare org or editor is
// not looked for by walking the whole log backwards (test/management/list-plans.test.ts).
import type { Queryable } from '../platform/db.ts';
import { Conditions } from '../platform/search.ts';
import { EDITOR_COLUMNS, EDITOR_JOIN, type ChangeRow } from './changes.ts';

export interface AuditFilter {
  /** The org whose objects' events are shown (events.resource_owner); absent: the whole instance. */
  orgId?: string;
  object?: { type: string; id: string };
  /** The user who did it (events.creator). */
  editorId?: string;
}

export interface AuditRow extends ChangeRow {
  aggregate_type: string;
  aggregate_id: string;
}

export interface AuditPage {
  rows: AuditRow[];
  /** The sequence to ask for the next (older) page with, when there is one. */
  next?: string;
}

export async function listAudit(
  db: Queryable,
  filter: AuditFilter,
  page: { before?: bigint; limit: number },
): Promise<AuditPage> {
  const where = new Conditions();
  if (filter.orgId !== undefined) where.add('e.resource_owner = ?', filter.orgId);
  if (filter.object) {
    where.add('e.aggregate_type = ?', filter.object.type);
    where.add('e.aggregate_id = ?', filter.object.id);
  }
  if (filter.editorId !== undefined) where.add('e.creator = ?', filter.editorId);
  if (page.before !== undefined) where.add('e.sequence < ?::bigint', page.before.toString());
  const limit = where.param(page.limit + 1);
  const { rows } = await db.query<AuditRow>(
    `SELECT e.sequence, e.aggregate_type, e.aggregate_id, e.event_type, e.created_at, e.creator, e.resource_owner,
            ${EDITOR_COLUMNS}
     FROM events e ${EDITOR_JOIN} ${where.sql}
     ORDER BY e.sequence DESC LIMIT ${limit}`,
    where.params,
  );
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  return { rows: shown, ...(more ? { next: shown.at(-1)!.sequence } : {}) };
}
