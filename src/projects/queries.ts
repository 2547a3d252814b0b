import type { Queryable } from '../platform/db.ts';

export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  state: 'active' | 'inactive';
  project_role_assertion: boolean;
  project_role_check: boolean;
  has_project_check: boolean;
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

const PROJECT_COLUMNS = `id, org_id, name, state, project_role_assertion, project_role_check, has_project_check,
  created_at, changed_at, sequence`;

export async function insertProject(
  tx: Queryable,
  p: { id: string; orgId: string; name: string; sequence: string },
): Promise<void> {
  await tx.query('INSERT INTO projects (id, org_id, name, sequence) VALUES ($1, $2, $3, $4)', [
    p.id,
    p.orgId,
    p.name,
    p.sequence,
  ]);
}

export async function findProjectById(db: Queryable, id: string): Promise<ProjectRow | undefined> {
  const { rows } = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id]);
  return rows[0];
}

/** The row locked for a change in this transaction. */
export async function lockProject(tx: Queryable, id: string): Promise<ProjectRow | undefined> {
  const { rows } = await tx.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0];
}

export interface ProjectSettings {
  name: string;
  projectRoleAssertion: boolean;
  projectRoleCheck: boolean;
  hasProjectCheck: boolean;
}

export async function updateProjectRow(
  tx: Queryable,
  id: string,
  s: ProjectSettings & { state: 'active' | 'inactive'; sequence: string; changedAt: Date },
): Promise<void> {
  await tx.query(
    `UPDATE projects SET name = $2, project_role_assertion = $3, project_role_check = $4, has_project_check = $5,
       state = $6, sequence = $7, changed_at = $8
     WHERE id = $1`,
    [id, s.name, s.projectRoleAssertion, s.projectRoleCheck, s.hasProjectCheck, s.state, s.sequence, s.changedAt],
  );
}

/** Its apps, roles and grants go with it (ON DELETE CASCADE, migrations 0002 and 0070). */
export async function deleteProject(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM projects WHERE id = $1', [id]);
}

// --- roles (projects/roles.ts) ---

export interface RoleRow {
  project_id: string;
  role_key: string;
  display_name: string;
  role_group: string;
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

export interface NewRole {
  key: string;
  displayName: string;
  group: string;
}

export async function insertRoles(tx: Queryable, projectId: string, roles: NewRole[], sequence: string): Promise<void> {
  await tx.query(
    `INSERT INTO project_roles (project_id, role_key, display_name, role_group, sequence)
     SELECT $1, k, d, g, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS r(k, d, g)`,
    [projectId, roles.map((r) => r.key), roles.map((r) => r.displayName), roles.map((r) => r.group), sequence],
  );
}

export async function findRole(db: Queryable, projectId: string, key: string): Promise<RoleRow | undefined> {
  const { rows } = await db.query<RoleRow>(
    `SELECT project_id, role_key, display_name, role_group, created_at, changed_at, sequence
     FROM project_roles WHERE project_id = $1 AND role_key = $2`,
    [projectId, key],
  );
  return rows[0];
}

/** The keys of those given that the project does not have. */
export async function missingRoleKeys(db: Queryable, projectId: string, keys: string[]): Promise<string[]> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT k AS key FROM unnest($2::text[]) AS k
     WHERE NOT EXISTS (SELECT 1 FROM project_roles r WHERE r.project_id = $1 AND r.role_key = k)`,
    [projectId, keys],
  );
  return rows.map((r) => r.key);
}

export async function updateRole(
  tx: Queryable,
  r: { projectId: string; key: string; displayName: string; group: string; sequence: string; changedAt: Date },
): Promise<void> {
  await tx.query(
    `UPDATE project_roles SET display_name = $3, role_group = $4, sequence = $5, changed_at = $6
     WHERE project_id = $1 AND role_key = $2`,
    [r.projectId, r.key, r.displayName, r.group, r.sequence, r.changedAt],
  );
}

/** Deletes the role and takes it out of every user and project grant of the project in the same statement. */
export async function deleteRole(tx: Queryable, projectId: string, key: string): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM project_roles WHERE project_id = $1 AND role_key = $2),
       lent AS (UPDATE project_grants SET role_keys = array_remove(role_keys, $2)
                WHERE project_id = $1 AND $2 = ANY (role_keys))
     UPDATE user_grants SET role_keys = array_remove(role_keys, $2)
     WHERE project_id = $1 AND $2 = ANY (role_keys)`,
    [projectId, key],
  );
}
