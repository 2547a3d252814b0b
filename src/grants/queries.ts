import type { Queryable } from '../platform/db.ts';

/** A user grant with what its message shows of the user, the granting org and the project (zitadel.user.v1). */
export interface UserGrantRow {
  id: string;
  user_id: string;
  project_id: string;
  org_id: string;
  project_grant_id: string | null;
  role_keys: string[];
  state: 'active' | 'inactive';
  created_at: Date;
  changed_at: Date;
  sequence: string;
  user_name: string;
  user_type: 'human' | 'machine';
  first_name: string | null;
  last_name: string | null;
  display_name: string | null;
  email: string | null;
  user_domain: string;
  org_name: string;
  org_domain: string;
  project_name: string;
}

export const GRANT_COLUMNS = `g.id, g.user_id, g.project_id, g.org_id, g.project_grant_id, g.role_keys, g.state,
    g.created_at, g.changed_at, g.sequence, u.user_name, u.type AS user_type, u.first_name, u.last_name,
    u.display_name, u.email,
    uo.primary_domain AS user_domain, o.name AS org_name, o.primary_domain AS org_domain, p.name AS project_name`;

export const GRANT_TABLES = `user_grants g
  JOIN users u ON u.id = g.user_id
  JOIN orgs uo ON uo.id = u.org_id
  JOIN orgs o ON o.id = g.org_id
  JOIN projects p ON p.id = g.project_id`;

const SELECT_GRANT = `SELECT ${GRANT_COLUMNS} FROM ${GRANT_TABLES}`;

export async function findGrant(db: Queryable, id: string, lock = false): Promise<UserGrantRow | undefined> {
  const { rows } = await db.query<UserGrantRow>(`${SELECT_GRANT} WHERE g.id = $1${lock ? ' FOR UPDATE OF g' : ''}`, [
    id,
  ]);
  return rows[0];
}

export async function insertGrant(
  tx: Queryable,
  g: {
    id: string;
    userId: string;
    projectId: string;
    orgId: string;
    projectGrantId: string | null;
    roleKeys: string[];
    sequence: string;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO user_grants (id, user_id, project_id, org_id, project_grant_id, role_keys, sequence)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [g.id, g.userId, g.projectId, g.orgId, g.projectGrantId, g.roleKeys, g.sequence],
  );
}

export async function updateGrant(
  tx: Queryable,
  id: string,
  g: { roleKeys: string[]; state: 'active' | 'inactive'; sequence: string; changedAt: Date },
): Promise<void> {
  await tx.query('UPDATE user_grants SET role_keys = $2, state = $3, sequence = $4, changed_at = $5 WHERE id = $1', [
    id,
    g.roleKeys,
    g.state,
    g.sequence,
    g.changedAt,
  ]);
}

export async function deleteGrants(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query('DELETE FROM user_grants WHERE id = ANY ($1::text[])', [ids]);
}

/** The grants among those given that the org holds, locked for their removal. */
export async function lockOrgGrants(tx: Queryable, orgId: string, ids: string[]): Promise<{ id: string }[]> {
  const { rows } = await tx.query<{ id: string }>(
    'SELECT id FROM user_grants WHERE id = ANY ($1::text[]) AND org_id = $2 FOR UPDATE',
    [ids, orgId],
  );
  return rows;
}

/** The roles a user holds through active grants of active projects (under an active project grant, if any), for
 *  the token claims (oidc/token-claims.ts): one index lookup per project (user_grants_active_unique). */
export interface GrantedRoles {
  project_id: string;
  role_keys: string[];
  org_id: string;
  org_domain: string;
}

/** One index lookup per project given (user_grants_active_unique); test/grants/claim-plans.test.ts holds it. */
export const GRANTED_ROLES_SQL = `SELECT g.project_id, g.role_keys, g.org_id, o.primary_domain AS org_domain
     FROM unnest($2::text[]) AS r(project_id)
     JOIN user_grants g ON g.user_id = $1 AND g.project_id = r.project_id AND g.state = 'active'
     JOIN projects p ON p.id = g.project_id AND p.state = 'active'
     JOIN orgs o ON o.id = g.org_id
     WHERE g.project_grant_id IS NULL
        OR EXISTS (SELECT 1 FROM project_grants pg WHERE pg.id = g.project_grant_id AND pg.state = 'active')`;

export async function findGrantedRoles(db: Queryable, userId: string, projectIds: string[]): Promise<GrantedRoles[]> {
  const { rows } = await db.query<GrantedRoles>(GRANTED_ROLES_SQL, [userId, projectIds]);
  return rows;
}
