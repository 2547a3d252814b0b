import type { Queryable } from '../platform/db.ts';

export interface InstanceRow {
  id: string;
  domain: string;
  default_org_id: string;
  created_at: Date;
}

export async function findInstance(db: Queryable): Promise<InstanceRow | undefined> {
  const { rows } = await db.query<InstanceRow>('SELECT id, domain, default_org_id, created_at FROM instance');
  return rows[0];
}

export async function insertInstance(
  tx: Queryable,
  i: { id: string; domain: string; defaultOrgId: string },
): Promise<void> {
  await tx.query('INSERT INTO instance (id, domain, default_org_id) VALUES ($1, $2, $3)', [
    i.id,
    i.domain,
    i.defaultOrgId,
  ]);
}
