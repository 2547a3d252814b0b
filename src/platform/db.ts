// One code path on the pg API: a pg.Pool to PostgreSQL, or a pg.Pool over embedded PGlite through its in-process
// node-postgres adapter (no socket, same type parsers as production).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { secureDataDir, tightenDataDir } from './data-dir.ts';
import { lockDirectory } from './dir-lock.ts';
import { fromDatabaseError, isLostConnection } from './errors.ts';
import { named, send, type Statement, type Submittable, TimedQuery, unnamed } from './statements.ts';

// The row of a query that names no type: its columns are unknown until narrowed. A typed query names its row type,
// any interface, as pg's own QueryResultRow allows.
export type Row = Record<string, unknown>;

export interface Queryable {
  query<R extends pg.QueryResultRow = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Session extends Queryable {
  release(): void;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs fn in one transaction. Inside fn use only the given tx: PGlite has a single session, so a query on the
   *  pool from inside a transaction waits for that transaction forever. A known constraint violation leaves it as
   *  its AppError (fromDatabaseError, platform/errors.ts). */
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** A statement planned for its values every time it runs, on its own (no transaction): sent as the unnamed
   *  statement, which PostgreSQL plans at Bind with the values and the tables' sizes at hand. For lists
   *  (platform/search.ts), whose best plan depends on them: a named statement may get a generic plan after five
   *  runs, and a generic plan of `LIKE $1` cannot use an index; and for the write-behind's deletes
   *  (oidc/write-behind.ts) and the redeem of codes and refresh tokens (oidc/fast/user-grants.ts), whose kept plan
   *  may date from when the table was small. Costs one parse and plan per run. Not retried when it writes (a bare
   *  write is not: see below). */
  queryPlanned<R extends pg.QueryResultRow = Row>(text: string, params: readonly unknown[]): Promise<pg.QueryResult<R>>;
  /** Queries sent since start, and how many of them through queryPlanned: benchmarks and tests count queries per
   *  request with it. */
  readonly stats: { queries: number; planned: number };
  readonly pool: pg.Pool;
  /** One connection for session-scoped work (session advisory locks), until release(): a pool connection, or
   *  under transaction pooling a connection of its own to GATEHOUSE_DATABASE_DIRECT_URL, since a pooler hands
   *  each transaction a different server session. */
  session(): Promise<Session>;
  /** Runs a small read on a connection of its own (PostgreSQL), so health checks and metric scrapes never queue
   *  behind business requests for a pool slot; returns the first column of the first row as text. */
  ping(sql?: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** How statements reach the server: per statement outside and inside a transaction, and how a transaction opens. */
interface Protocol {
  bare: Statement;
  /** Db.queryPlanned's: never a named statement. */
  planned: Statement;
  inTx: Statement;
  begin: string;
  /** The health check's reads on their own connection. */
  ping: (sql: string) => Submittable;
  session: () => Promise<Session>;
}

// What is retried (only what is safe to retry):
// - a transaction that failed with a serialization failure or deadlock: PostgreSQL rolled it back as a whole;
// - once, a transaction whose connection broke before its COMMIT was sent: the server rolls back an open
//   transaction whose connection ends, so nothing of it was applied (a pool connection that went stale in a
//   failover is replaced by a fresh one). A connection lost during COMMIT is never retried: the commit may have
//   happened, and running the transaction again would apply it twice. The caller answers 503 instead;
// - once, a bare read whose connection broke: reading again changes nothing. A bare write is not retried, as it
//   may have been applied before the answer was lost.
// A connection that cannot be made is not retried either: the database is away, and the client is told when to
// come back (503 with Retry-After) instead of waiting here.
const ROLLED_BACK = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;
const READ = /^\s*SELECT\b/i;

class PoolDb implements Db {
  readonly stats = { queries: 0, planned: 0 };
  readonly kind: 'postgres' | 'embedded';
  readonly pool: pg.Pool;
  readonly #protocol: Protocol;
  readonly #onClose: () => Promise<void>;
  readonly #pingConfig: pg.ClientConfig | undefined;
  #pingClient: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(
    kind: 'postgres' | 'embedded',
    pool: pg.Pool,
    protocol: Protocol,
    onClose: () => Promise<void> = async () => {},
    pingConfig?: pg.ClientConfig,
  ) {
    this.kind = kind;
    this.pool = pool;
    this.#protocol = protocol;
    this.#onClose = onClose;
    this.#pingConfig = pingConfig;
    // An idle client that loses its server (restart, failover) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
  }

  query<R extends pg.QueryResultRow = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    return this.#send<R>(this.#protocol.bare, text, params);
  }

  queryPlanned<R extends pg.QueryResultRow = Row>(
    text: string,
    params: readonly unknown[],
  ): Promise<pg.QueryResult<R>> {
    this.stats.planned++;
    return this.#send<R>(this.#protocol.planned, text, params);
  }

  async #send<R extends pg.QueryResultRow>(
    statement: Statement,
    text: string,
    params: readonly unknown[] | undefined,
  ): Promise<pg.QueryResult<R>> {
    this.stats.queries++;
    try {
      return await send<R>(this.pool, statement(text, params));
    } catch (error) {
      if (!READ.test(text) || !isLostConnection(error)) throw error;
      // a new statement object: a submitted pg.Query is not sent twice
      return send<R>(this.pool, statement(text, params));
    }
  }

  async tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const { inTx, begin } = this.#protocol;
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
      const tx: Queryable = {
        query: <R extends pg.QueryResultRow>(text: string, params?: readonly unknown[]) => {
          stats.queries++;
          return send<R>(client, inTx(text, params));
        },
      };
      let committing = false;
      try {
        await client.query(begin);
        const result = await fn(tx);
        committing = true;
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        const rolledBack = ROLLED_BACK.has((error as { code?: string }).code ?? '');
        const neverCommitted = attempt === 1 && !committing && isLostConnection(error);
        if (attempt < MAX_ATTEMPTS && (rolledBack || neverCommitted)) continue;
        throw fromDatabaseError(error);
      } finally {
        client.removeListener('error', onLostConnection);
        client.release(broken);
      }
    }
  }

  session(): Promise<Session> {
    return this.#protocol.session();
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
      return firstValue(await send(await this.#pingClient, this.#protocol.ping(sql)));
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

const fromPool = (pool: pg.Pool) => (): Promise<Session> => pool.connect();

/** How the pool's connections name themselves in pg_stat_activity (a `?application_name=` in the URL overrides it). */
export const APPLICATION_NAME = 'gatehouse';

export async function openDb(database: Config['database'], log?: Pick<Logger, 'warn'>): Promise<Db> {
  if (database.kind === 'postgres') {
    const transactionPooling = database.pooling === 'transaction';
    const timeoutMs = database.statementTimeoutMs;
    const connection = {
      connectionString: database.url,
      connectionTimeoutMillis: database.connectTimeoutMs,
      // Bounded wait for a reply even if the server vanished without closing the socket.
      query_timeout: timeoutMs + 1000,
      application_name: APPLICATION_NAME,
    };
    const startup = (ms: number) => (transactionPooling ? {} : { statement_timeout: ms });
    const pool = new pg.Pool({
      ...connection,
      ...startup(timeoutMs),
      max: database.poolSize,
      idleTimeoutMillis: 30_000,
    });
    const pingTimeout = Math.min(database.connectTimeoutMs, 2000);
    const protocol: Protocol = transactionPooling
      ? {
          bare: (text, params) => new TimedQuery(timeoutMs, text, params),
          planned: (text, params) => new TimedQuery(timeoutMs, text, params),
          inTx: unnamed,
          begin: `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`,
          ping: (sql) => new TimedQuery(pingTimeout, sql, undefined),
          // A session of its own on the direct URL (PostgreSQL itself, not the pooler), bounded like the pool's.
          session: async () => {
            const client = new pg.Client({
              ...connection,
              connectionString: database.directUrl ?? database.url,
              statement_timeout: timeoutMs,
            });
            client.on('error', () => {});
            await client.connect().catch((error: Error) => {
              void client.end().catch(() => {});
              throw database.directUrl
                ? error
                : new Error(
                    'GATEHOUSE_DATABASE_DIRECT_URL is unset, so the session for migrations went to DATABASE_URL, ' +
                      `which failed (a transaction pooler refuses it): ${error.message}`,
                    { cause: error },
                  );
            });
            return Object.assign(client, { release: () => void client.end().catch(() => {}) });
          },
        }
      : {
          bare: named,
          planned: unnamed,
          inTx: named,
          begin: 'BEGIN',
          ping: (sql) => ({ text: sql }),
          session: fromPool(pool),
        };
    return new PoolDb('postgres', pool, protocol, undefined, {
      ...connection,
      ...startup(pingTimeout),
      application_name: `${APPLICATION_NAME}-health`,
      connectionTimeoutMillis: pingTimeout,
      query_timeout: pingTimeout + 500,
    });
  }
  // Owner-only before PGlite creates or opens a file: the directory holds secrets (data-dir.ts).
  secureDataDir(database.dataDir, log);
  const dir = join(database.dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  // PGlite does not lock its directory: a second process would silently lose writes.
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
    const protocol: Protocol = {
      bare: unnamed,
      planned: unnamed,
      inTx: unnamed,
      begin: 'BEGIN',
      ping: (sql) => ({ text: sql }),
      session: fromPool(pool),
    };
    return new PoolDb('embedded', pool, protocol, async () => {
      await pglite.close();
      tightenDataDir(dir);
      unlock();
    });
  } catch (error) {
    unlock();
    throw error;
  }
}
