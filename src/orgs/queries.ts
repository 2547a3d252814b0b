import type { Queryable } from '../platform/db.ts';

export interface OrgRow {
  id: string;
  name: string;
  primary_domain: string;
  state: 'active' | 'inactive';
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

const COLUMNS = 'id, name, primary_domain, state, created_at, changed_at, sequence';
/** OrgRow's columns of `orgs o`, for the reads that join or list orgs under that name. */
export const ORG_COLUMNS = COLUMNS.split(', ')
  .map((c) => `o.${c}`)
  .join(', ');

export async function insertOrg(
  tx: Queryable,
  org: { id: string; name: string; primaryDomain: string; sequence: string },
): Promise<void> {
  await tx.query('INSERT INTO orgs (id, name, primary_domain, sequence) VALUES ($1, $2, $3, $4)', [
    org.id,
    org.name,
    org.primaryDomain,
    org.sequence,
  ]);
}

export async function insertOrgDomain(
  tx: Queryable,
  d: { orgId: string; domain: string; isPrimary: boolean; isVerified: boolean },
): Promise<void> {
  await tx.query('INSERT INTO org_domains (org_id, domain, is_primary, is_verified) VALUES ($1, $2, $3, $4)', [
    d.orgId,
    d.domain,
    d.isPrimary,
    d.isVerified,
  ]);
}

export async function findOrgById(db: Queryable, id: string): Promise<OrgRow | undefined> {
  const { rows } = await db.query<OrgRow>(`SELECT ${COLUMNS} FROM orgs WHERE id = $1`, [id]);
  return rows[0];
}

export async function findOrgByDomain(db: Queryable, domain: string): Promise<OrgRow | undefined> {
  const { rows } = await db.query<OrgRow>(
    `SELECT ${ORG_COLUMNS} FROM orgs o JOIN org_domains d ON d.org_id = o.id WHERE lower(d.domain) = lower($1)`,
    [domain],
  );
  return rows[0];
}

export async function countOrgs(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM orgs');
  return Number(rows[0]?.n ?? 0);
}

export async function lockOrg(tx: Queryable, id: string): Promise<OrgRow | undefined> {
  const { rows } = await tx.query<OrgRow>(`SELECT ${COLUMNS} FROM orgs WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0];
}

export async function updateOrgColumns(
  tx: Queryable,
  id: string,
  columns: Partial<Pick<OrgRow, 'name' | 'state'>>,
  sequence: string,
  changedAt: Date,
): Promise<void> {
  const sets = Object.keys(columns).map((name, i) => `${name} = $${i + 4}`);
  await tx.query(`UPDATE orgs SET ${[...sets, 'sequence = $2', 'changed_at = $3'].join(', ')} WHERE id = $1`, [
    id,
    sequence,
    changedAt,
    ...Object.values(columns),
  ]);
}

/**
 * An org and everything it owns (RemoveOrg): memberships on it and on its projects, its projects (with their apps,
 * keys, consents, roles and grants: ON DELETE CASCADE), its users (with their memberships elsewhere, keys,
 * consents, grants and metadata) and its domains. The OIDC artifacts of its users go first (the caller's).
 */
export async function deleteOrgAndOwned(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `DELETE FROM memberships WHERE (resource_type = 'org' AND resource_id = $1)
       OR (resource_type = 'project' AND resource_id IN (SELECT id FROM projects WHERE org_id = $1))`,
    [id],
  );
  await tx.query('DELETE FROM projects WHERE org_id = $1', [id]);
  await tx.query('DELETE FROM users WHERE org_id = $1', [id]);
  await tx.query('DELETE FROM orgs WHERE id = $1', [id]);
}
