// The statements that remove or list one user's OIDC artifacts (at any size, only that user's rows), and how a test
// reads their plans. Shared by the EXPLAIN check of the normal suite (test/users/artifact-plans.test.ts, a small seeded
// database) and the slow one at 1M users and 10M stored tokens (test/production/user-artifacts-at-scale.test.ts).
import { type ScaleSize, seedScale } from '../../bench/scale-seed.ts';
import { openDb, type Db } from '../../src/platform/db.ts';
import { END_OTHER_SESSIONS } from '../../src/passwords/queries.ts';
import { DELETE_OIDC_ARTIFACTS_OF_USER, USER_SESSIONS } from '../../src/users/artifact-queries.ts';
import { CONSOLE_SESSION_USER } from '../../src/users/console-sessions.ts';
import { createTestDatabase } from './database.ts';
import { explainPrepared, type PlanMode } from './explain.ts';

/** Every statement in src/ that removes or lists one user's artifacts, with its parameters for a user ID (and the
 *  user's org). A new lifecycle statement belongs here. Deactivate, lock and remove run deleteOidcArtifactsOfUser
 *  (users/state.ts, members/remove-user.ts); a password change ends the other sessions (passwords/service.ts); the
 *  console's user page lists the user's sessions (console/user-detail.ts); every console request reads its session
 *  with the OP session's liveness (users/console-sessions.ts). */
export const USER_ARTIFACT_STATEMENTS: {
  name: string;
  sql: string;
  params: (userId: string, orgId: string) => (string | null)[];
  /** The indexes its plan reads. */
  indexes: string[];
}[] = [
  {
    name: 'deleteOidcArtifactsOfUser',
    sql: DELETE_OIDC_ARTIFACTS_OF_USER,
    params: (userId) => [userId],
    indexes: ['oidc_payloads_account_idx', 'oidc_payloads_grant_idx'],
  },
  {
    name: 'endOtherSessions',
    sql: END_OTHER_SESSIONS,
    params: (userId) => [userId, 'kept-session-uid'],
    indexes: ['oidc_payloads_account_idx'],
  },
  {
    name: 'findUserSessions',
    sql: USER_SESSIONS,
    params: (userId, orgId) => [userId, orgId],
    indexes: ['oidc_payloads_account_idx', 'users_pkey'],
  },
  {
    // every console request: its session, alive only while the OP session that created it lives
    name: 'findConsoleSessionUser',
    sql: CONSOLE_SESSION_USER,
    params: () => ['console-session-id-hash', '3600', '43200', '60'],
    indexes: ['console_sessions_pkey', 'oidc_payloads_uid_idx'],
  },
];

/** The tables that grow with a deployment: a scan of any of them whole is what these statements must never do. */
const BIG_TABLES = ['oidc_payloads', 'users', 'events'];

interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

export interface Scan {
  node: string;
  /** '' for a Bitmap Index Scan. */
  relation: string;
  index?: string;
}

export interface Plan {
  scans: Scan[];
  /** The planner's estimate for the whole statement: above jit_above_cost (100,000 by default) PostgreSQL compiles
   *  it first, 12 to 100 ms at 10M rows, which is what a statement estimated to read 50,000 rows for one user costs. */
  cost: number;
}

/**
 * The scans of a statement's plan, generic (what a connection uses for a prepared statement after five runs, blind
 * to the parameter) or custom (for this user). A DELETE is planned, not run (EXPLAIN without ANALYZE).
 */
export async function planOf(db: Db, sql: string, params: (string | null)[], mode: PlanMode): Promise<Plan> {
  return db.tx(async (tx) => {
    const plan = await explainPrepared<PlanNode>(tx, sql, params, mode);
    const scans: Scan[] = [];
    const walk = (node: PlanNode) => {
      // a Bitmap Index Scan names only its index, whose table its Bitmap Heap Scan names
      if (node['Relation Name'] || node['Index Name'])
        scans.push({ node: node['Node Type'], relation: node['Relation Name'] ?? '', index: node['Index Name'] });
      node.Plans?.forEach(walk);
    };
    walk(plan);
    return { scans, cost: plan['Total Cost'] };
  });
}

/**
 * The buffers (8 kB pages, cached or read) the statement touches when it runs for this user, rolled back: what it
 * reads, whatever else the machine does meanwhile (its time is at the mercy of the shared cores, this is not).
 */
export async function pagesTouched(db: Db, sql: string, params: (string | null)[]): Promise<number> {
  const session = await db.session();
  try {
    await session.query('BEGIN');
    const plan = await explainPrepared<Record<string, number>>(session, sql, params, 'force_custom_plan', {
      analyze: true,
      buffers: true,
    });
    return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
  } finally {
    await session.query('ROLLBACK');
    session.release();
  }
}

/** The scans that read a big table other than through an index (a Seq Scan, or a Bitmap Heap Scan is fine only
 *  above an index: it is counted as the table's access, its Bitmap Index Scan as the index's). */
export function wholeTableScans(scans: Scan[]): Scan[] {
  return scans.filter((s) => BIG_TABLES.includes(s.relation) && !/Index|Bitmap Heap|ModifyTable/.test(s.node));
}

/** A migrated database seeded to `size`, opened with a statement timeout long enough for the seed's index builds. */
export async function seededDatabase(size: ScaleSize, progress?: (what: string) => void) {
  const database = await createTestDatabase();
  const db = await openDb(
    database.database.kind === 'postgres' ? { ...database.database, statementTimeoutMs: 3_600_000 } : database.database,
  );
  const seed = await seedScale(db, size, progress);
  return {
    db,
    seed,
    async drop() {
      await db.close();
      await database.drop();
    },
  };
}
