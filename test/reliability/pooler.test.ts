// Behind PgBouncer 1.18 in transaction pooling: with GATEHOUSE_DB_POOLING=transaction Gatehouse starts without the
// startup parameter PgBouncer refuses, keeps no session state through it, and serves a sign-in, the token endpoints and
// the management API, and a concurrent load without a single failed request. Without the setting the same load through
// the same kind of pooler fails, which is what makes the load meaningful.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/platform/db.ts';
import { listMigrations, migrate, schemaVersion } from '../../src/platform/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { callApi, okJson } from '../helpers/management.ts';
import {
  basic,
  createApiApp,
  createMachine,
  createOidcApp,
  createProject,
  postForm,
  userTokens,
} from '../helpers/oidc.ts';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';

const IN_FLIGHT = 32;

/** `total` requests, `IN_FLIGHT` at a time, round-robin over the operations; returns the failures by status. */
async function load(
  total: number,
  operations: (() => Promise<number>)[],
  maxMs: number,
): Promise<{ sent: number; failed: Record<string, number> }> {
  const deadline = Date.now() + maxMs;
  const failed: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < total && Date.now() < deadline) {
        const operation = operations[next++ % operations.length]!;
        const status = await operation().catch(() => 'network-error' as const);
        if (status !== 200) failed[status] = (failed[status] ?? 0) + 1;
      }
    }),
  );
  return { sent: next, failed };
}

interface Workload {
  operations: (() => Promise<number>)[];
}

/** client_credentials, introspection of a token from it, and userinfo with it, on a fresh machine user created
 *  through `db` (the server's own, or a direct one where the server's cannot be relied on). */
async function workload(server: TestServer, db: Db = server.db): Promise<Workload> {
  const fixtures = { ...server, db };
  const machine = await createMachine(fixtures);
  const projectId = await createProject(fixtures);
  const resourceServer = await createApiApp(fixtures, projectId);
  // the token's audience includes the resource server's project, so that introspection finds it active
  const scope = `openid urn:zitadel:iam:org:project:id:${projectId}:aud`;
  const clientCredentials = () =>
    postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope },
      { authorization: basic(machine.userName, machine.clientSecret) },
    );
  const issued = await clientCredentials();
  expect(issued.status).toBe(200);
  const token = issued.json.access_token as string;
  return {
    operations: [
      async () => (await clientCredentials()).status,
      async () => {
        const res = await postForm(
          `${server.url}/oauth/v2/introspect`,
          { token },
          { authorization: basic(resourceServer.clientId, resourceServer.clientSecret!) },
        );
        return res.status === 200 && res.json.active === true ? 200 : res.status === 200 ? 299 : res.status;
      },
      async () => {
        const res = await fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return res.status;
      },
    ],
  };
}

describe.runIf(isPostgres)('behind PgBouncer in transaction pooling', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let server: TestServer;
  let adminToken = '';
  const direct = () => database.env.DATABASE_URL!;
  const pooled = (overrides: Record<string, string> = {}) => ({
    DATABASE_URL: bouncer.url(direct()),
    GATEHOUSE_DATABASE_DIRECT_URL: direct(),
    GATEHOUSE_DB_POOLING: 'transaction',
    ...overrides,
  });

  beforeAll(async () => {
    // As Debian configures nothing more: no ignore_startup_parameters.
    bouncer = await startPgBouncer(process.env.DATABASE_URL!, { poolMode: 'transaction' });
    database = await createTestDatabase();
    const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-pooler-')), 'admin.json');
    // first start on this database: migrations (direct) and the bootstrap (through PgBouncer)
    server = await startTestServer({
      database,
      env: pooled({ GATEHOUSE_ADMIN_KEY_FILE: keyPath, DATABASE_POOL_SIZE: '16', LOG_LEVEL: 'warn' }),
    });
    adminToken = await jwtProfileToken(server, JSON.parse(readFileSync(keyPath, 'utf8')));
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await bouncer?.stop();
  });

  it('serves a sign-in through the login pages, code exchange, refresh, introspection, userinfo and SetUpOrg', async () => {
    const app = await createOidcApp(server);
    const tokens = await userTokens(server, app);
    expect(tokens.refresh_token).toBeTruthy();

    const refreshed = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(refreshed.status).toBe(200);
    const accessToken = refreshed.json.access_token as string;

    const resourceServer = await createApiApp(server, app.projectId);
    const introspected = await postForm(
      `${server.url}/oauth/v2/introspect`,
      { token: accessToken },
      { authorization: basic(resourceServer.clientId, resourceServer.clientSecret!) },
    );
    expect(introspected.json).toMatchObject({ active: true, client_id: app.clientId });

    const userinfo = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: introspected.json.sub });

    for (const encoding of ['rest', 'grpc'] as const) {
      const n = `${encoding}-${Date.now().toString(36)}`;
      const setUp = okJson<{ orgId: string; userId: string }>(
        await callApi(
          server.url,
          encoding,
          {
            service: AdminService,
            method: 'SetUpOrg',
            rest: ['POST', '/admin/v1/orgs/_setup'],
            body: {
              org: { name: `Pooled ${n}` },
              human: {
                userName: `pooled-${n}`,
                profile: { firstName: 'Pat', lastName: 'Pool' },
                email: { email: `pooled-${n}@example.com`, isEmailVerified: true },
                password: 'Pooled-Password-1',
              },
            },
          },
          { token: adminToken },
        ),
      );
      expect(setUp.orgId).toMatch(/^\d+$/);
      expect(setUp.userId).toMatch(/^\d+$/);
    }
  });

  it(`serves ${IN_FLIGHT} requests in flight of client_credentials, introspection and userinfo without one failure`, async () => {
    const { operations } = await workload(server);
    const result = await load(3000, operations, 120_000);
    console.log(
      `through PgBouncer (transaction pooling): ${result.sent} requests, failed ${JSON.stringify(result.failed)}`,
    );
    expect(result.sent).toBe(3000);
    expect(result.failed).toEqual({});
  }, 150_000);

  it('migrates an empty database on the direct connection, and reads the schema version through PgBouncer', async () => {
    const empty = await createTestDatabase({ empty: true });
    const db = await openDb({
      ...(empty.database as Extract<TestDatabase['database'], { kind: 'postgres' }>),
      url: bouncer.url(empty.env.DATABASE_URL!),
      directUrl: empty.env.DATABASE_URL!,
      pooling: 'transaction',
    });
    try {
      const all = listMigrations();
      expect(await migrate(db)).toEqual(all.map((m) => m.name));
      expect(await schemaVersion(db)).toBe(all.at(-1)!.version);
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
      await empty.drop();
    }
  });

  it('prepares no named statement and leaves no setting behind in the session', async () => {
    // on PostgreSQL itself, one connection, so that what the session keeps can be seen
    const db = await openDb({
      kind: 'postgres',
      url: direct(),
      poolSize: 1,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 4000,
      pooling: 'transaction',
    });
    try {
      for (const n of [1, 2]) expect((await db.query<{ n: number }>('SELECT $1::int AS n', [n])).rows).toEqual([{ n }]);
      await db.tx(async (tx) => {
        await tx.query('SELECT $1::int AS n', [3]);
      });
      const session = await db.pool.connect();
      try {
        expect((await session.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows).toEqual([{ n: 0 }]);
        expect(
          (
            await session.query(
              "SELECT setting = reset_val AS unchanged FROM pg_settings WHERE name = 'statement_timeout'",
            )
          ).rows,
        ).toEqual([{ unchanged: true }]);
      } finally {
        session.release();
      }
    } finally {
      await db.close();
    }
  });

  it('still ends a statement at the statement timeout, outside and inside a transaction', async () => {
    const db = await openDb({
      kind: 'postgres',
      url: bouncer.url(direct()),
      poolSize: 2,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 300,
      pooling: 'transaction',
    });
    try {
      const timedOut = async (query: Promise<unknown>) => {
        const started = Date.now();
        await expect(query).rejects.toThrow(/canceling statement due to statement timeout/);
        expect(Date.now() - started).toBeLessThan(2000);
      };
      await timedOut(db.query('SELECT pg_sleep($1)', [5]));
      await timedOut(db.query('SELECT pg_sleep(5)'));
      await timedOut(
        db.tx(async (tx) => {
          await tx.query('SELECT 1');
          await tx.query('SELECT pg_sleep($1)', [5]);
        }),
      );
      // below the timeout a statement runs, and results are the query's own (not the timeout setting's)
      expect((await db.query<{ n: number }>('SELECT $1::int + 1 AS n, pg_sleep(0.1)', [1])).rows).toEqual([
        { n: 2, pg_sleep: '' },
      ]);
      expect((await db.query<{ t: string }>("SELECT current_setting('statement_timeout') AS t")).rows).toEqual([
        { t: '300ms' },
      ]);
    } finally {
      await db.close();
    }
  });
});

describe.runIf(isPostgres)('behind PgBouncer in transaction pooling, without GATEHOUSE_DB_POOLING', () => {
  let database: TestDatabase;
  const bouncers: PgBouncer[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    for (const b of bouncers) await b.stop();
  });

  it('does not start: PgBouncer refuses the statement_timeout startup parameter', async () => {
    const bouncer = await startPgBouncer(process.env.DATABASE_URL!, { poolMode: 'transaction' });
    bouncers.push(bouncer);
    await expect(
      startTestServer({ database, env: { DATABASE_URL: bouncer.url(database.env.DATABASE_URL!) } }),
    ).rejects.toThrow(/unsupported startup parameter: statement_timeout/);
  });

  it('with the setting but no GATEHOUSE_DATABASE_DIRECT_URL, does not start, and names the variable', async () => {
    const bouncer = await startPgBouncer(process.env.DATABASE_URL!, { poolMode: 'transaction' });
    bouncers.push(bouncer);
    await expect(
      startTestServer({
        database,
        env: { DATABASE_URL: bouncer.url(database.env.DATABASE_URL!), GATEHOUSE_DB_POOLING: 'transaction' },
      }),
    ).rejects.toThrow(/GATEHOUSE_DATABASE_DIRECT_URL is unset, .*unsupported startup parameter: statement_timeout/);
  });

  it('with the parameter ignored (as operators try next), fails requests under load: named statements', async () => {
    const bouncer = await startPgBouncer(process.env.DATABASE_URL!, {
      poolMode: 'transaction',
      ignoreStartupParameters: ['statement_timeout'],
    });
    bouncers.push(bouncer);
    const namedStatementLost = /prepared statement \\?"gh\d+\\?" (does not exist|already exists)/;
    // The start itself may already fail so (seen once in CI): its statements run on several pool connections at
    // once, and the pooler may hand a statement prepared on one server connection to another.
    const started = await startTestServer({
      database,
      env: { DATABASE_URL: bouncer.url(database.env.DATABASE_URL!), DATABASE_POOL_SIZE: '16', LOG_LEVEL: 'warn' },
    }).catch((error: Error) => error);
    if (started instanceof Error) {
      expect(started.message).toMatch(namedStatementLost);
      return;
    }
    const server = started;
    const direct = await openDb(database.database);
    try {
      const { operations } = await workload(server, direct);
      const result = await load(900, operations, 60_000);
      console.log(
        `through PgBouncer (session-mode settings): ${result.sent} requests, failed ${JSON.stringify(result.failed)}`,
      );
      expect(Object.values(result.failed).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(server.logs.join('')).toMatch(namedStatementLost);
    } finally {
      await server.stop();
      await direct.close();
    }
  }, 120_000);
});
