import type { Queryable } from '../platform/db.ts';

/** A project grant with the names its message (zitadel.project.v1.GrantedProject) shows. */
export interface ProjectGrantRow {
  id: string;
  project_id: string;
  granted_org_id: string;
  role_keys: string[];
  state: 'active' | 'inactive';
  created_at: Date;
  changed_at: Date;
  sequence: string;
  granted_org_name: string;
  project_name: string;
  project_owner_id: string;
  project_owner_name: string;
}

export const PROJECT_GRANT_COLUMNS = `pg.id, pg.project_id, pg.granted_org_id, pg.role_keys, pg.state, pg.created_at,
  pg.changed_at, pg.sequence, go.name AS granted_org_name, p.name AS project_name, p.org_id AS project_owner_id,
  po.name AS project_owner_name`;

export const PROJECT_GRANT_TABLES = `project_grants pg
  JOIN orgs go ON go.id = pg.granted_org_id
  JOIN projects p ON p.id = pg.project_id
  JOIN orgs po ON po.id = p.org_id`;

export async function findProjectGrant(db: Queryable, id: string, lock = false): Promise<ProjectGrantRow | undefined> {
  const { rows } = await db.query<ProjectGrantRow>(
    `SELECT ${PROJECT_GRANT_COLUMNS} FROM ${PROJECT_GRANT_TABLES} WHERE pg.id = $1${lock ? ' FOR UPDATE OF pg' : ''}`,
    [id],
  );
  return rows[0];
}

export async function insertProjectGrant(
  tx: Queryable,
  g: { id: string; projectId: string; grantedOrgId: string; roleKeys: string[]; sequence: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO project_grants (id, project_id, granted_org_id, role_keys, sequence)
     VALUES ($1, $2, $3, $4, $5)`,
    [g.id, g.projectId, g.grantedOrgId, g.roleKeys, g.sequence],
  );
}

/** New role keys or state; the user grants made under it keep only the keys still lent. */
export async function updateProjectGrant(
  tx: Queryable,
  id: string,
  g: { roleKeys: string[]; state: 'active' | 'inactive'; sequence: string; changedAt: Date },
): Promise<void> {
  await tx.query(
    `WITH narrowed AS (
       UPDATE user_grants SET role_keys = ARRAY(SELECT k FROM unnest(role_keys) AS k WHERE k = ANY ($2::text[]))
       WHERE project_grant_id = $1 AND NOT role_keys <@ $2::text[])
     UPDATE project_grants SET role_keys = $2, state = $3, sequence = $4, changed_at = $5 WHERE id = $1`,
    [id, g.roleKeys, g.state, g.sequence, g.changedAt],
  );
}

/** The user grants made under it go with it (ON DELETE CASCADE). */
export async function deleteProjectGrant(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM project_grants WHERE id = $1', [id]);
}

/** Whether the org holds an active grant of the project (hasProjectCheck). */
export async function holdsProjectGrant(db: Queryable, projectId: string, orgId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "SELECT 1 FROM project_grants WHERE project_id = $1 AND granted_org_id = $2 AND state = 'active'",
    [projectId, orgId],
  );
  return rowCount === 1;
}
