// What is retried when a database connection breaks under a statement (only what is safe to retry): a read, and a
// transaction that never reached COMMIT, are run again on a fresh connection; a bare write and a transaction whose
// COMMIT went unanswered are not, because the server may have applied them. A TCP proxy between the pool and PostgreSQL
// breaks the connections at those moments; the rows show what the server applied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { openDb, type Db } from '../../src/platform/db.ts';
import { isDatabaseUnavailable } from '../../src/platform/errors.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sleep } from '../helpers/load.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

describe.runIf(isPostgres)('a lost database connection', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Db;
  let direct: Db;
  let config: Extract<Config['database'], { kind: 'postgres' }>;
  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    config = database.database;
    const target = new URL(config.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(target);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    // one connection, so that the statement after a reset takes the connection that broke
    db = await openDb({ ...config, url: viaProxy.toString(), poolSize: 1 });
    direct = await openDb(config);
    await direct.query('CREATE TABLE lost_connection_probe (n int NOT NULL)');
  });
  afterAll(async () => {
    await db?.close();
    await direct?.close();
    await proxy?.close();
    await database?.drop();
  });

  const rows = async (n: number) =>
    Number((await direct.query('SELECT count(*) AS c FROM lost_connection_probe WHERE n = $1', [n])).rows[0]!.c);
  const resetSoon = () => void sleep(100).then(() => proxy.reset());

  it('reads again on a fresh connection', async () => {
    resetSoon();
    const { rows: result } = await db.query<{ n: number }>('SELECT 7 AS n FROM pg_sleep(0.4)');
    expect(result).toEqual([{ n: 7 }]);
  });

  it('does not send a bare write again: the server may have applied it', async () => {
    resetSoon();
    const error = await db.query('INSERT INTO lost_connection_probe SELECT 1 FROM pg_sleep(0.4)').catch((e) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    await sleep(600);
    expect(await rows(1)).toBe(1);
  });

  it('runs a transaction again whose connection broke before COMMIT: nothing of it was applied', async () => {
    let runs = 0;
    await db.tx(async (tx) => {
      runs++;
      await tx.query('INSERT INTO lost_connection_probe VALUES ($1)', [2]);
      if (runs === 1) resetSoon();
      await tx.query('SELECT pg_sleep(0.4)');
    });
    expect(runs).toBe(2);
    expect(await rows(2)).toBe(1);
  });

  it('does not run a transaction again whose COMMIT went unanswered; the database is reported unavailable', async () => {
    let runs = 0;
    proxy.loseAnswerTo('COMMIT');
    const error = await db
      .tx(async (tx) => {
        runs++;
        await tx.query('INSERT INTO lost_connection_probe VALUES ($1)', [3]);
      })
      .catch((e) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(runs).toBe(1);
    // the server committed it: running it again would have written it twice
    expect(await rows(3)).toBe(1);
  });

  it('reports a write refused by a read-only server (a standby the balancer still routes to) as unavailable', async () => {
    const url = new URL(config.url);
    url.searchParams.set('options', '-c default_transaction_read_only=on');
    const readOnly = await openDb({ ...config, url: url.toString() });
    try {
      const error = await readOnly
        .tx((tx) => tx.query('INSERT INTO lost_connection_probe VALUES ($1)', [4]))
        .catch((e) => e);
      expect(error.code).toBe('25006');
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await readOnly.close();
    }
  });
});
