// One code path on the pg API: a pg.Pool to PostgreSQL, or a pg.Pool over embedded PGlite through its in-process
// node-postgres adapter (no socket, same type parsers as production; feasibility-findings.md Q1).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { secureDataDir, tightenDataDir } from './data-dir.ts';
import { lockDirectory } from './dir-lock.ts';
import { fromDatabaseError } from './errors.ts';

export type Row = Record<string, any>;

export interface Queryable {
  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs fn in one transaction. Inside fn use only the given tx: PGlite has a single session, so a query on the
   *  pool from inside a transaction waits for that transaction forever. A known constraint violation leaves it as
   *  its AppError (fromDatabaseError, platform/errors.ts). */
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Queries sent since start: benchmarks and tests count queries per request with it. */
  readonly stats: { queries: number };
  readonly pool: pg.Pool;
  /** Runs a small read on a connection of its own (PostgreSQL), so health checks and metric scrapes never queue
   *  behind business requests for a pool slot; returns the first column of the first row as text. */
  ping(sql?: string): Promise<string | undefined>;
  close(): Promise<void>;
}

// Parameterised statements are prepared once per connection, under a name given to their text, so PostgreSQL
// parses and plans each only once. Measured on PostgreSQL 15 (issue 8): a primary-key read of oidc_payloads costs
// the server about 30 µs instead of 115 and an upsert 180 instead of 250, and pg's own work per query halves. Every
// statement text in src/ is a constant, so the names stay few; NAMED_MAX bounds them should one ever be built from
// data. A migration that changes the columns a prepared statement returns makes the connections of older processes
// fail it ("cached plan must not change result type") until they restart, which is why queries name their columns.
// Not on PGlite: it keeps one session under every client the pool hands out, so a name prepared through a client
// the pool discarded would still be taken.
const statementNames = new Map<string, string>();
const NAMED_MAX = 500;

function statement(text: string, params: readonly unknown[] | undefined, prepare: boolean): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  if (!prepare || !values?.length) return { text, values };
  let name = statementNames.get(text);
  if (!name && statementNames.size < NAMED_MAX) statementNames.set(text, (name = `gh${statementNames.size + 1}`));
  return { name, text, values };
}

// Serialization failures and deadlocks are safe to retry: the transaction was rolled back as a whole.
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;

class PoolDb implements Db {
  readonly stats = { queries: 0 };
  readonly kind: 'postgres' | 'embedded';
  readonly pool: pg.Pool;
  readonly #onClose: () => Promise<void>;
  readonly #pingConfig: pg.ClientConfig | undefined;
  #pingClient: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(
    kind: 'postgres' | 'embedded',
    pool: pg.Pool,
    onClose: () => Promise<void> = async () => {},
    pingConfig?: pg.ClientConfig,
  ) {
    this.kind = kind;
    this.pool = pool;
    this.#onClose = onClose;
    this.#pingConfig = pingConfig;
    // An idle client that loses its server (restart, failover) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
  }

  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    this.stats.queries++;
    return this.pool.query<R>(statement(text, params, this.kind === 'postgres'));
  }

  async tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let broken = false;
      const client = await this.pool.connect();
      // A connection lost while checked out (between two statements of fn) is reported as an 'error' event; the
      // pool only listens on idle clients, and an unheard 'error' would end the process. The failure itself
      // reaches fn through its next query.
      const onLostConnection = () => {
        broken = true;
      };
      client.on('error', onLostConnection);
      const stats = this.stats;
      const prepare = this.kind === 'postgres';
      const tx: Queryable = {
        query: <R extends Row>(text: string, params?: readonly unknown[]) => {
          stats.queries++;
          return client.query<R>(statement(text, params, prepare));
        },
      };
      try {
        await client.query('BEGIN');
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        if (attempt < MAX_ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw fromDatabaseError(error);
      } finally {
        client.removeListener('error', onLostConnection);
        client.release(broken);
      }
    }
  }

  async ping(sql = 'SELECT 1'): Promise<string | undefined> {
    // PGlite has a single session anyway; its queries are in-process and short.
    if (!this.#pingConfig) return firstValue(await this.pool.query(sql));
    if (this.#closed) throw new Error('the database is closed');
    const config = this.#pingConfig;
    this.#pingClient ??= (async () => {
      const client = new pg.Client(config);
      client.on('error', () => {
        this.#pingClient = undefined;
      });
      await client.connect();
      return client;
    })();
    try {
      return firstValue(await (await this.#pingClient).query(sql));
    } catch (error) {
      const broken = this.#pingClient;
      this.#pingClient = undefined;
      broken?.then((c) => c.end()).catch(() => {});
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const ping = this.#pingClient;
    this.#pingClient = undefined;
    await ping?.then((c) => c.end()).catch(() => {});
    await this.pool.end();
    await this.#onClose();
  }
}

function firstValue(result: pg.QueryResult): string | undefined {
  const row = result.rows[0];
  const value = row ? Object.values(row)[0] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

export async function openDb(database: Config['database'], log?: Pick<Logger, 'warn'>): Promise<Db> {
  if (database.kind === 'postgres') {
    const connection = {
      connectionString: database.url,
      connectionTimeoutMillis: database.connectTimeoutMs,
      statement_timeout: database.statementTimeoutMs,
      // Bounded wait for a reply even if the server vanished without closing the socket.
      query_timeout: database.statementTimeoutMs + 1000,
      application_name: 'gatehouse',
    };
    const pool = new pg.Pool({ ...connection, max: database.poolSize, idleTimeoutMillis: 30_000 });
    const pingTimeout = Math.min(database.connectTimeoutMs, 2000);
    return new PoolDb('postgres', pool, undefined, {
      ...connection,
      application_name: 'gatehouse-health',
      connectionTimeoutMillis: pingTimeout,
      statement_timeout: pingTimeout,
      query_timeout: pingTimeout + 500,
    });
  }
  // Owner-only before PGlite creates or opens a file (issue 13 item 2).
  secureDataDir(database.dataDir, log);
  const dir = join(database.dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  // PGlite does not lock its directory: a second process would silently lose writes (feasibility-findings.md Q1).
  const unlock = lockDirectory(database.dataDir);
  try {
    // Loaded lazily so that a production process on PostgreSQL never loads the WASM build.
    const { PGlite } = await import('@electric-sql/pglite');
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const pglite = await PGlite.create(dir);
    // PGlite unpacks a new database with its archive's modes (0666), and its file system layer sets the modes of
    // some files it rewrites at start (pg_internal.init, 0644) past the umask: tightened again, silently, after
    // opening and after closing, so that the next start only reports what someone else changed.
    tightenDataDir(dir);
    const pool = new pg.Pool({ ...(createPgConfig(pglite) as unknown as pg.PoolConfig), max: 1 });
    return new PoolDb('embedded', pool, async () => {
      await pglite.close();
      tightenDataDir(dir);
      unlock();
    });
  } catch (error) {
    unlock();
    throw error;
  }
}
