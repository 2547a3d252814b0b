// The latest changes of an instance or of one org (the console's overview), newest first: each event with its
// editor and the object it changed while that object still exists (its name, and for an app's event the app), so a
// reader can name it and link to it. The events' primary key serves the instance's read, events_resource_owner_idx
// an org's; the objects are read by their primary keys, a few rows at most per event.
import type { Queryable } from '../platform/db.ts';
import { EDITOR_COLUMNS, EDITOR_JOIN } from './changes.ts';

export interface RecentChange {
  sequence: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  resourceOwner: string;
  createdAt: Date;
  editorName: string | null;
  editorLoginName: string | null;
  /** The user changed (a user's event, or a user grant's: its user), while it exists. */
  user: { id: string; name: string } | null;
  /** The project changed, and for an app's event the app, while they exist. */
  project: { id: string; name: string } | null;
  app: { id: string; name: string } | null;
  org: { id: string; name: string } | null;
}

/** The bounds of a page of recent changes. */
export const RECENT_LIMIT = { default: 10, max: 50 } as const;

const pair = (alias: string, name: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE jsonb_build_object('id', ${alias}.id, 'name', ${alias}.${name}) END`;

/** The `limit` newest events (at most RECENT_LIMIT.max) of the whole instance (`orgId` null) or of one org's objects
 *  (the events it owns). */
export async function listRecentChanges(db: Queryable, orgId: string | null, limit: number): Promise<RecentChange[]> {
  const params: unknown[] = [Math.min(Math.max(1, limit), RECENT_LIMIT.max)];
  // two statements rather than `$2 IS NULL OR ...`, so each keeps its own index in a generic plan
  const where = orgId === null ? '' : `WHERE resource_owner = $${params.push(orgId)}`;
  const { rows } = await db.query<RecentChange>(
    `SELECT e.sequence, e.event_type AS "eventType", e.aggregate_type AS "aggregateType",
            e.aggregate_id AS "aggregateId", e.resource_owner AS "resourceOwner", e.created_at AS "createdAt",
            editor_name AS "editorName", editor_login_name AS "editorLoginName",
            ${pair('tu', 'user_name')} AS "user", ${pair('tp', 'name')} AS project, ${pair('ta', 'name')} AS app,
            ${pair('tor', 'name')} AS org
       FROM (SELECT e.*, ${EDITOR_COLUMNS}
               FROM (SELECT * FROM events ${where} ORDER BY sequence DESC LIMIT $1) e ${EDITOR_JOIN}) e
       LEFT JOIN users tu ON tu.id = CASE e.aggregate_type WHEN 'user' THEN e.aggregate_id
                                                           WHEN 'usergrant' THEN e.payload->>'userId' END
       LEFT JOIN projects tp ON e.aggregate_type = 'project' AND tp.id = e.aggregate_id
       LEFT JOIN apps ta ON e.aggregate_type = 'project' AND ta.id = e.payload->>'appId' AND ta.project_id = tp.id
       LEFT JOIN orgs tor ON e.aggregate_type = 'org' AND tor.id = e.aggregate_id
      ORDER BY e.sequence DESC`,
    params,
  );
  return rows;
}
