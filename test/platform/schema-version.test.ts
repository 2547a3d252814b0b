// A node whose code and database schema differ reports not ready and says so in the log, naming both versions
// (docs/upgrading.md, "How a rolling upgrade works"): a newer release recorded a migration this code does not know,
// or the database is older than the code (restored from before a migration). Both directions, through the running
// server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/platform/migrate.ts';
import { SCHEMA_CHECK_INTERVAL_MS } from '../../src/platform/schema-check.ts';
import { until } from '../helpers/load.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const CODE_VERSION = listMigrations().at(-1)!.version;
const FUTURE_VERSION = CODE_VERSION + 10;

describe('readiness follows the schema version', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  const readiness = async () => {
    const res = await fetch(`${server.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };
  /** The log lines since `from` that carry both versions. */
  const versionLines = (from: number) =>
    server.logs
      .slice(from)
      .map((l) => JSON.parse(l) as { level: number; msg: string; schemaVersion?: number; codeVersion?: number })
      .filter((l) => l.schemaVersion !== undefined && l.codeVersion !== undefined);

  /** Waits for the background check (no probe) to log the schema at `version`; bounded by two intervals. */
  async function loggedWithoutProbe(from: number, version: number) {
    await until(
      async () => versionLines(from).some((l) => l.schemaVersion === version),
      2 * SCHEMA_CHECK_INTERVAL_MS + 2000,
      `log line for schema ${version}`,
    );
    return versionLines(from).find((l) => l.schemaVersion === version)!;
  }

  it('turns not ready when a newer release records a migration, logs both versions, and is ready again without it', async () => {
    expect((await readiness()).status).toBe(200);
    const from = server.logs.length;
    // what a newer release's start writes after applying its migration (platform/migrate.ts)
    await server.db.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      FUTURE_VERSION,
      `${FUTURE_VERSION}_from_a_newer_release.sql`,
      'x',
    ]);
    const line = await loggedWithoutProbe(from, FUTURE_VERSION);
    expect(line).toMatchObject({ level: 50, codeVersion: CODE_VERSION });
    expect(line.msg).toContain(`database schema is at ${FUTURE_VERSION}, newer than ${CODE_VERSION} of this code`);
    const notReady = await readiness();
    expect(notReady.status).toBe(503);
    expect(notReady.body.reason).toContain(`${FUTURE_VERSION}`);
    expect(notReady.body.reason).toContain(`${CODE_VERSION}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200); // alive, only not ready

    const back = server.logs.length;
    await server.db.query('DELETE FROM schema_migrations WHERE version = $1', [FUTURE_VERSION]);
    expect((await readiness()).status).toBe(200);
    expect(versionLines(back)).toMatchObject([{ level: 30, schemaVersion: CODE_VERSION }]);
  }, 30_000);

  it('turns not ready when the database is older than the code, logging both versions', async () => {
    const newest = (await server.db.query('SELECT * FROM schema_migrations WHERE version = $1', [CODE_VERSION]))
      .rows[0]!;
    const from = server.logs.length;
    await server.db.query('DELETE FROM schema_migrations WHERE version = $1', [CODE_VERSION]);
    try {
      const older = listMigrations().at(-2)!.version;
      const line = await loggedWithoutProbe(from, older);
      expect(line).toMatchObject({ level: 50, codeVersion: CODE_VERSION });
      expect(line.msg).toContain(`database schema is at ${older}, older than ${CODE_VERSION} of this code`);
      const notReady = await readiness();
      expect(notReady.status).toBe(503);
      expect(notReady.body.reason).toContain(`${older}`);
    } finally {
      await server.db.query(
        'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
        [newest.version, newest.name, newest.checksum, newest.applied_at],
      );
    }
    expect((await readiness()).status).toBe(200);
  }, 30_000);
});
