import type { Queryable } from '../platform/db.ts';

export type ResourceType = 'instance' | 'org' | 'project';

export async function insertMembership(
  tx: Queryable,
  m: { userId: string; resourceType: ResourceType; resourceId: string; roles: readonly string[] },
): Promise<void> {
  await tx.query(
    `INSERT INTO memberships (user_id, resource_type, resource_id, roles) VALUES ($1, $2, $3, $4)
     ON CONFLICT ON CONSTRAINT memberships_pkey DO UPDATE
       SET roles = ARRAY(SELECT DISTINCT unnest(memberships.roles || EXCLUDED.roles)), changed_at = now()`,
    [m.userId, m.resourceType, m.resourceId, m.roles],
  );
}

export interface MembershipRow {
  resource_type: ResourceType;
  resource_id: string;
  roles: string[];
  /** The org of a project membership's project (null for other kinds). */
  project_org_id: string | null;
}

/** The memberships of the user `userId` names (an SQL expression) as MembershipRow columns, a project's with its
 *  org: also read with the management API's bearer token (oidc/queries.ts BEARER_SQL). */
export const membershipsOf = (userId: string) =>
  `SELECT m.resource_type, m.resource_id, m.roles, p.org_id AS project_org_id
   FROM memberships m LEFT JOIN projects p ON m.resource_type = 'project' AND p.id = m.resource_id
   WHERE m.user_id = ${userId}`;

/** A user's memberships, a project's with its org: one statement, so the permission check of a request reads the
 *  roles once (management/auth.ts). */
export async function findMemberships(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(membershipsOf('$1'), [userId]);
  return rows;
}

/** Inserts a membership that must not exist yet; false when it does. */
export async function insertNewMembership(
  tx: Queryable,
  m: { userId: string; resourceType: ResourceType; resourceId: string; roles: readonly string[]; sequence: string },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO memberships (user_id, resource_type, resource_id, roles, sequence) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ON CONSTRAINT memberships_pkey DO NOTHING`,
    [m.userId, m.resourceType, m.resourceId, m.roles, m.sequence],
  );
  return rowCount === 1;
}

export interface Resource {
  type: ResourceType;
  id: string;
}

/** The membership locked for a change; undefined when the user is no member of the resource. */
export async function lockMembership(
  tx: Queryable,
  resource: Resource,
  userId: string,
): Promise<{ roles: string[] } | undefined> {
  const { rows } = await tx.query<{ roles: string[] }>(
    'SELECT roles FROM memberships WHERE user_id = $1 AND resource_type = $2 AND resource_id = $3 FOR UPDATE',
    [userId, resource.type, resource.id],
  );
  return rows[0];
}

export async function updateMembershipRoles(
  tx: Queryable,
  resource: Resource,
  userId: string,
  roles: readonly string[],
  sequence: string,
): Promise<void> {
  await tx.query(
    `UPDATE memberships SET roles = $4, sequence = $5, changed_at = now()
     WHERE user_id = $1 AND resource_type = $2 AND resource_id = $3`,
    [userId, resource.type, resource.id, roles, sequence],
  );
}

export async function deleteMembership(tx: Queryable, resource: Resource, userId: string): Promise<void> {
  await tx.query('DELETE FROM memberships WHERE user_id = $1 AND resource_type = $2 AND resource_id = $3', [
    userId,
    resource.type,
    resource.id,
  ]);
}

/** Every membership on a resource that goes (RemoveOrg, RemoveProject); those of its users go with the users. */
export async function deleteMembershipsOn(tx: Queryable, resource: Resource): Promise<void> {
  await tx.query('DELETE FROM memberships WHERE resource_type = $1 AND resource_id = $2', [resource.type, resource.id]);
}

/** The holders of IAM_OWNER with their orgs, locked: concurrent removals of the last two wait for each other. */
export async function lockIamOwners(tx: Queryable): Promise<{ user_id: string; org_id: string }[]> {
  const { rows } = await tx.query<{ user_id: string; org_id: string }>(
    `SELECT m.user_id, u.org_id FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.resource_type = 'instance' AND 'IAM_OWNER' = ANY(m.roles) ORDER BY m.user_id FOR UPDATE OF m`,
  );
  return rows;
}
