// Every list and lookup of the management API is index-backed: on a seeded, ANALYZEd database (100,000 users in one
// org, as many events and user grants, half as many OIDC rows; 200 members, a realistic count), the statements the
// services send are planned with index scans, never a scan of a whole large table (a table of 200 rows is rightly read
// whole). The statements are recorded from the real service functions, then EXPLAINed with their parameters.
import { beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../src/events/audit.ts';
import { listChanges } from '../../src/events/changes.ts';
import { listUserGrants, type GrantFilter } from '../../src/grants/list.ts';
import { listProjectGrants } from '../../src/grants/project-grants.ts';
import { listMembers } from '../../src/members/manage.ts';
import { listOrgs } from '../../src/orgs/lifecycle.ts';
import type { Db, Queryable } from '../../src/platform/db.ts';
import type { Page, TextMethod } from '../../src/platform/search.ts';
import { listUsers, type UserFilter } from '../../src/users/list.ts';
import { deleteOidcArtifactsOfOrgUsers, deleteOidcArtifactsOfUser } from '../../src/users/artifact-queries.ts';
import { isUserUnique } from '../../src/users/queries.ts';
import { getOrgUser, orgUserGetter } from '../../src/users/service.ts';
import { useTestDb } from '../helpers/database.ts';
import { explainPrepared, type PlanMode, rolledBack } from '../helpers/explain.ts';

const USERS = 100_000;
const BIG_TABLES = ['users', 'events', 'oidc_payloads', 'user_grants'];
const ORG = '900000000000000001';
const SMALL_ORG = '900000000000000002';
const PROJECT = '700000000000000001';
const PROJECT_GRANT = '710000000000000001';
const SMALL_USER = '800000000000000100';
const EDITOR = '800000000000004242';
const page: Page = { offset: 0n, limit: 100, asc: true };
const SEED_BATCH = 10_000;

describe('list and lookup plans at scale', () => {
  const db = useTestDb();

  /** Inserts rows numbered 1 to `count` (`generate_series($1, $2)` in `insert`; its own values from $3 on) in
   *  batches, so that each statement stays well within the statement and client timeouts on a busy machine. */
  async function seedRows(count: number, insert: string, params: unknown[] = []): Promise<void> {
    for (let from = 1; from <= count; from += SEED_BATCH)
      await db.query(insert, [from, Math.min(count, from + SEED_BATCH - 1), ...params]);
  }

  beforeAll(async () => {
    await db.query(
      `INSERT INTO orgs (id, name, primary_domain, sequence) VALUES ($1, 'Big', 'big.example.test', 1),
         ($2, 'Small', 'small.example.test', 1)`,
      [ORG, SMALL_ORG],
    );
    // as many orgs as a large deployment (bench/scale-seed.ts): with two, a search across orgs may probe each org's
    // index in turn and look index-backed; with a thousand it reads the whole table
    await seedRows(
      1000,
      `INSERT INTO orgs (id, name, primary_domain, sequence)
       SELECT (900000000000010000 + n)::text, 'Org ' || n, 'org-' || n || '.example.test', 1
       FROM generate_series($1::int, $2::int) AS n`,
    );
    await seedRows(
      USERS,
      `INSERT INTO users (id, org_id, type, user_name, first_name, last_name, display_name, email, sequence)
       SELECT (800000000000000000 + n)::text, CASE WHEN n % 100 = 0 THEN $4 ELSE $3 END, 'human',
              'user' || n, 'First' || n, 'Last' || n, 'User ' || n, 'user' || n || '@example.test', n
       FROM generate_series($1::int, $2::int) AS n`,
      [ORG, SMALL_ORG],
    );
    // the small org's few events, by one editor, before the big org's many: the audit log's rare org and editor
    await db.query(
      `INSERT INTO events (aggregate_type, aggregate_id, event_type, resource_owner, creator)
       SELECT 'user', $1, 'user.profile.changed', $2, $3 FROM generate_series(1, 30)`,
      [SMALL_USER, SMALL_ORG, EDITOR],
    );
    await seedRows(
      USERS,
      `INSERT INTO events (aggregate_type, aggregate_id, event_type, resource_owner, creator)
       SELECT 'user', (800000000000000000 + n % ${USERS})::text, 'user.human.added', $3, 'seed'
       FROM generate_series($1::int, $2::int) AS n`,
      [ORG],
    );
    await db.query(
      `INSERT INTO memberships (user_id, resource_type, resource_id, roles)
       SELECT (800000000000000000 + n)::text, 'org', $1, '{ORG_OWNER}' FROM generate_series(1, ${USERS}, 500) AS n`,
      [ORG],
    );
    // every user of the big org holds a grant of its project; the small org was lent the project and granted it to
    // a quarter of its users
    await db.query(`INSERT INTO projects (id, org_id, name, sequence) VALUES ($1, $2, 'Big Project', 1)`, [
      PROJECT,
      ORG,
    ]);
    await db.query(
      `INSERT INTO project_grants (id, project_id, granted_org_id, role_keys, sequence)
       VALUES ($1, $2, $3, '{reader}', 1)`,
      [PROJECT_GRANT, PROJECT, SMALL_ORG],
    );
    await seedRows(
      USERS,
      `INSERT INTO user_grants (id, user_id, project_id, org_id, project_grant_id, role_keys, sequence)
       SELECT (600000000000000000 + n)::text, (800000000000000000 + n)::text, $3,
              CASE WHEN n % 100 = 0 THEN $5 ELSE $4 END, CASE WHEN n % 100 = 0 THEN $6 END,
              CASE WHEN n % 10 = 0 THEN '{writer}' ELSE '{reader}' END::text[], n
       FROM generate_series($1::int, $2::int) AS n WHERE n % 100 <> 0 OR n % 400 = 0`,
      [PROJECT, ORG, SMALL_ORG, PROJECT_GRANT],
    );
    await seedRows(
      USERS / 2,
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at)
       SELECT 'AccessToken', 'tok-' || n, jsonb_build_object('accountId', (800000000000000000 + n)::text),
              'grant-' || n, now() + interval '1 hour'
       FROM generate_series($1::int, $2::int) AS n`,
    );
    // VACUUM as autovacuum would after such a load: it marks the pages all-visible, so that a count can be an
    // index-only scan (a list's total, platform/search.ts)
    for (const table of ['orgs', 'users', 'events', 'memberships', 'projects', 'user_grants', 'oidc_payloads'])
      await db.query(`VACUUM ANALYZE ${table}`);
  }, 240_000);

  /** A statement a service function sent, and whether it was planned for its values (listPage's are). */
  interface Sent {
    text: string;
    params: unknown[];
    custom: boolean;
  }

  /** The statements a service function sends, recorded on their way to the database. */
  async function statements(run: (db: Db) => Promise<unknown>): Promise<Sent[]> {
    const sent: Sent[] = [];
    const record = (q: Queryable): Queryable => ({
      query: (text, params) => {
        sent.push({ text, params: [...(params ?? [])], custom: false });
        return q.query(text, params);
      },
    });
    const recorder = new Proxy(db, {
      get(target, key) {
        if (key === 'query') return record(target).query;
        // a list's statement, planned for its values every time (Db.queryPlanned)
        if (key === 'queryPlanned')
          return (text: string, params: unknown[]) => {
            sent.push({ text, params: [...params], custom: true });
            return target.queryPlanned(text, params);
          };
        if (key === 'tx') return (fn: (tx: Queryable) => Promise<unknown>) => target.tx((tx) => fn(record(tx)));
        return Reflect.get(target, key);
      },
    });
    await run(recorder);
    return sent;
  }

  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    'Actual Rows': number;
    'Actual Loops': number;
    'Rows Removed by Filter'?: number;
    'Rows Removed by Index Recheck'?: number;
    Plans?: PlanNode[];
  }

  /** The plans PostgreSQL runs a statement with (EXPLAIN ANALYZE, rolled back): for its values, and on PostgreSQL,
   *  where statements are prepared under a name, the generic plan a connection may use after five runs, unless the
   *  statement is planned for its values every time. */
  async function plans({ text, params, custom }: Sent): Promise<PlanNode[]> {
    const modes: PlanMode[] =
      db.kind === 'postgres' && !custom ? ['force_custom_plan', 'force_generic_plan'] : ['force_custom_plan'];
    const found: PlanNode[] = [];
    for (const mode of modes)
      found.push(await rolledBack(db, (tx) => explainPrepared<PlanNode>(tx, text, params, mode, { analyze: true })));
    return found;
  }

  /** The rows a plan reads from the large tables: scanned rows, with those a filter dropped, times the loops; with
   *  `fromRows`, only those of scans that read the table's rows (an index-only scan reads its index). */
  function rowsRead(node: PlanNode, scans: string[] = [], fromRows = false): number {
    let read = 0;
    const counted = !fromRows || node['Node Type'] !== 'Index Only Scan';
    if (node['Relation Name'] && BIG_TABLES.includes(node['Relation Name']) && counted) {
      scans.push(`${node['Node Type']} on ${node['Relation Name']}`);
      const per =
        node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      read += per * node['Actual Loops'];
    }
    for (const child of node.Plans ?? []) read += rowsRead(child, scans, fromRows);
    return read;
  }

  /** No sequential scan of a large table, and at most `maxRows` rows read from them (a listing that counts a
   *  whole org reads the org's rows through its index, by definition; a list reads its matches for the total and
   *  its page beside them, a page's worth more). */
  async function expectIndexBacked(run: (db: Db) => Promise<unknown>, maxRows = 1000 + 2 * page.limit): Promise<void> {
    const sent = await statements(run);
    expect(sent.length).toBeGreaterThan(0);
    for (const statement of sent) {
      for (const plan of await plans(statement)) {
        const scans: string[] = [];
        const read = rowsRead(plan, scans);
        const what = `${statement.text}\n${scans.join(', ')}: ${read} rows`;
        expect(
          scans.filter((s) => s.startsWith('Seq Scan')),
          what,
        ).toEqual([]);
        expect(read, what).toBeLessThanOrEqual(maxRows);
      }
    }
  }

  const byUserName = (value: string, method: TextMethod): UserFilter => ({
    field: 'userName',
    text: { value, method },
  });

  it.each([
    ['startsWith', 'user1234'],
    ['startsWithIgnoreCase', 'USER1234'],
    ['equals', 'user12345'],
    ['equalsIgnoreCase', 'USER12345'],
  ] as const)('ListUsers by user name, %s', async (method, value) => {
    await expectIndexBacked((d) => listUsers(d, ORG, [byUserName(value, method)], page, 'userName'));
    const result = await listUsers(db, ORG, [byUserName(value, method)], page, 'userName');
    expect(result.rows.length).toBeGreaterThan(0);
  });

  it('ListUsers by e-mail and display name prefix, and the plain first page in creation order', async () => {
    await expectIndexBacked((d) =>
      listUsers(d, ORG, [{ field: 'email', text: { value: 'USER777', method: 'startsWithIgnoreCase' } }], page),
    );
    await expectIndexBacked((d) =>
      listUsers(d, ORG, [{ field: 'displayName', text: { value: 'user 4242', method: 'equalsIgnoreCase' } }], page),
    );
    // an org of the bench's size (1,000 users); the big org is 99% of the table, whose count is rightly a table scan
    await expectIndexBacked((d) => listUsers(d, SMALL_ORG, [], page));
  });

  it("ListUsers with a search box's OR of user name, e-mail and display name (the console's users page)", async () => {
    const typed = (value: string): UserFilter => ({
      field: 'or',
      filters: (['userName', 'email', 'displayName'] as const).map((field) => ({
        field,
        text: { value, method: 'startsWithIgnoreCase' },
      })),
    });
    await expectIndexBacked((d) => listUsers(d, ORG, [typed('User 777')], page, 'userName'));
    await expectIndexBacked((d) => listUsers(d, ORG, [typed('user1234')], page, 'userName'));
    const found = await listUsers(db, ORG, [typed('USER 4242')], page, 'userName');
    expect(found.rows.map((u) => u.user_name).slice(0, 2)).toEqual(['user4242', 'user42420']); // 'User 4242x' too
  });

  it("the console's users page: an org's users by user name, a page at a time, counted from an index", async () => {
    // At 1,000,000 users too: a page reads its own rows (and those it skips), never every user of the org, and
    // the total is counted from an index (bench/console-pages.ts; migrations/0190_users_org_user_name_order.sql).
    // The small org has the bench's 1,000 users per org; the big one is 99% of the table, which a count rightly reads.
    for (const offset of [0n, 980n]) {
      const usersPage = { offset, limit: 20, asc: true };
      const sent = await statements((d) => listUsers(d, SMALL_ORG, [], usersPage, 'userName'));
      expect(sent).toHaveLength(1);
      for (const plan of await plans(sent[0]!)) {
        const scans: string[] = [];
        const read = rowsRead(plan, scans, true);
        expect(scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
        expect(read, scans.join(', ')).toBeLessThanOrEqual(Number(offset) + 20);
      }
      const result = await listUsers(db, SMALL_ORG, [], usersPage, 'userName');
      expect(result.rows).toHaveLength(20);
      expect(result.totalResult).toBe(BigInt(USERS / 100));
    }
  });

  it('ListUserGrants by user name, e-mail, display name, user, project grant, and with the granted ones', async () => {
    const grants =
      (filters: GrantFilter[], org = ORG) =>
      (d: Db) =>
        listUserGrants(d, org, filters, page);
    const userName: GrantFilter = { field: 'userName', text: { value: 'user1234', method: 'startsWith' } };
    await expectIndexBacked(grants([userName]));
    expect((await grants([userName])(db)).rows.map((g) => g.user_name)).toContain('user12345');
    await expectIndexBacked(grants([{ field: 'email', text: { value: 'USER777', method: 'startsWithIgnoreCase' } }]));
    await expectIndexBacked(
      grants([{ field: 'displayName', text: { value: 'user 4242', method: 'equalsIgnoreCase' } }]),
    );
    await expectIndexBacked(grants([{ field: 'userId', id: '800000000000004242' }]));
    await expectIndexBacked(grants([{ field: 'projectGrantId', id: PROJECT_GRANT }], SMALL_ORG));
    const lent = await grants([{ field: 'projectGrantId', id: PROJECT_GRANT }], SMALL_ORG)(db);
    expect(lent.totalResult).toBe(250n);
    // with the granted ones: the big org also sees the small org's grants on its project
    const withGranted: GrantFilter[] = [
      { field: 'withGranted' },
      { field: 'userName', text: { value: 'user1200', method: 'startsWith' } },
    ];
    await expectIndexBacked(grants(withGranted));
    expect((await grants(withGranted)(db)).rows.map((g) => g.org_id)).toContain(SMALL_ORG);
    await expectIndexBacked((d) =>
      listProjectGrants(
        d,
        ORG,
        PROJECT,
        [{ projectName: { value: 'big', method: 'startsWithIgnoreCase' } }, { roleKey: 'reader' }],
        page,
      ),
    );
  });

  it('ListEvents of an org, an editor or an object, newest first, one page after the other', async () => {
    const newest = { after: 0n, limit: 20, asc: false };
    await expectIndexBacked((d) => listEvents(d, { resourceOwner: SMALL_ORG }, newest));
    await expectIndexBacked((d) => listEvents(d, { editorId: EDITOR }, newest));
    await expectIndexBacked((d) => listEvents(d, { aggregateId: SMALL_USER }, newest));
    await expectIndexBacked((d) => listEvents(d, { aggregateId: SMALL_USER, aggregateTypes: ['user'] }, newest));
    await expectIndexBacked((d) => listEvents(d, { resourceOwner: ORG, editorId: 'seed' }, newest));
    await expectIndexBacked((d) => listEvents(d, {}, newest));
    const page1 = await listEvents(db, { resourceOwner: SMALL_ORG, editorId: EDITOR }, { ...newest, asc: true });
    expect(page1).toHaveLength(20);
    expect(page1[0]).toMatchObject({ aggregate_id: SMALL_USER, creator: EDITOR, editor_name: 'User 4242' });
    const rest = { after: BigInt(page1.at(-1)!.sequence), limit: 20, asc: true };
    await expectIndexBacked((d) => listEvents(d, { resourceOwner: SMALL_ORG }, rest));
    const page2 = await listEvents(db, { resourceOwner: SMALL_ORG }, rest);
    expect(page2).toHaveLength(10);
    expect(BigInt(page2[0]!.sequence)).toBeGreaterThan(rest.after);
  });

  it('GetUserByID, IsUserUnique, the members, orgs and history lists, and ending a user or org session', async () => {
    await expectIndexBacked((d) => getOrgUser(d, { orgId: ORG, userId: '800000000000004242' }));
    // the management API's GetUserByID, batched (a prepared statement: its generic plan is checked too)
    await expectIndexBacked((d) => orgUserGetter(d)({ orgId: ORG, userId: '800000000000004242' }));
    await expectIndexBacked((d) => isUserUnique(d, ORG, 'user4242', 'user4242@example.test'));
    await expectIndexBacked((d) => listMembers(d, { type: 'org', id: ORG }, [], page));
    await expectIndexBacked((d) =>
      listOrgs(d, [{ field: 'name', text: { value: 'bi', method: 'startsWithIgnoreCase' } }], page, true),
    );
    await expectIndexBacked((d) =>
      listChanges(d, { type: 'user', id: '800000000000004242' }, { sequence: 0n, limit: 100, asc: false }),
    );
    await expectIndexBacked((d) => d.tx((tx) => deleteOidcArtifactsOfUser(tx, '800000000000004242')));
    await expectIndexBacked((d) => d.tx((tx) => deleteOidcArtifactsOfOrgUsers(tx, '900000000000000002')));
  });
});
