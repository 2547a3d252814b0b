import type { Queryable } from '../platform/db.ts';

export interface ProjectRow {
  id: string;
  org_id: string;
  name: string;
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

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
  const { rows } = await db.query<ProjectRow>(
    'SELECT id, org_id, name, created_at, changed_at, sequence FROM projects WHERE id = $1',
    [id],
  );
  return rows[0];
}
