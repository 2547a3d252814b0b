import type { Queryable } from '../platform/db.ts';

export type ResourceType = 'instance' | 'org';

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
}

export async function findMemberships(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>(
    'SELECT resource_type, resource_id, roles FROM memberships WHERE user_id = $1',
    [userId],
  );
  return rows;
}

/** Inserts a membership that must not exist yet; false when it does. */
export async function insertNewMembership(
  tx: Queryable,
  m: { userId: string; resourceType: ResourceType; resourceId: string; roles: readonly string[] },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO memberships (user_id, resource_type, resource_id, roles) VALUES ($1, $2, $3, $4)
     ON CONFLICT ON CONSTRAINT memberships_pkey DO NOTHING`,
    [m.userId, m.resourceType, m.resourceId, m.roles],
  );
  return rowCount === 1;
}
