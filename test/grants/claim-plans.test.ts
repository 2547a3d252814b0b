// The token claims' reads work through indexes, however many grants are stored: the roles of a user's grants by user
// and project (user_grants_active_unique), the user's metadata by the primary key's user prefix.
import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTED_ROLES_SQL } from '../../src/grants/queries.ts';
import { ALL_METADATA_SQL } from '../../src/metadata/queries.ts';
import { useTestDb } from '../helpers/database.ts';

const USERS = 2_000;
const PROJECTS = 10;

describe('claim query plans', () => {
  const db = useTestDb();

  beforeAll(async () => {
    await db.query(
      "INSERT INTO orgs (id, name, primary_domain, sequence) VALUES ('plan-org', 'Plan Org', 'plan.test', 1)",
    );
    await db.query(
      `INSERT INTO users (id, org_id, type, user_name, machine_name, sequence)
       SELECT 'plan-user-' || n, 'plan-org', 'machine', 'plan-user-' || n, 'm', 1 FROM generate_series(1, ${USERS}) n`,
    );
    await db.query(
      `INSERT INTO projects (id, org_id, name, sequence)
       SELECT 'plan-project-' || n, 'plan-org', 'p' || n, 1 FROM generate_series(1, ${PROJECTS}) n`,
    );
    await db.query(
      `INSERT INTO user_grants (id, user_id, project_id, org_id, role_keys, sequence)
       SELECT 'plan-grant-' || u || '-' || p, 'plan-user-' || u, 'plan-project-' || p, 'plan-org', ARRAY['r'], 1
       FROM generate_series(1, ${USERS}) u, generate_series(1, ${PROJECTS}) p`,
    );
    await db.query(
      `INSERT INTO user_metadata (user_id, key, value, sequence)
       SELECT 'plan-user-' || u, 'k' || k, '\\x01', 1 FROM generate_series(1, ${USERS}) u, generate_series(1, 3) k`,
    );
    await db.query('ANALYZE');
  });

  const planOf = async (sql: string, params: unknown[]) =>
    (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');

  it('reads the granted roles by user and project through an index', async () => {
    const plan = await planOf(GRANTED_ROLES_SQL, ['plan-user-7', ['plan-project-1', 'plan-project-2']]);
    expect(plan).toMatch(/Index (Only )?Scan using user_grants_active_unique on user_grants g/);
    // (the one org and ten projects here are read whole: smaller than an index; both are read by primary key too)
    expect(plan).not.toMatch(/Seq Scan on user_grants|Hash Join[^\n]*\n[^\n]*user_grants/);
  });

  it('reads the metadata of a user through the primary key', async () => {
    const plan = await planOf(ALL_METADATA_SQL, ['plan-user-7']);
    expect(plan).toMatch(/Index Scan (using|on) user_metadata_pkey/);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
