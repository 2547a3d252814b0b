// One code path on the pg API: a pg.Pool to PostgreSQL, or a pg.Pool over embedded PGlite through its in-process
// node-postgres adapter (no socket, same type parsers as production; feasibility-findings.md Q1).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import { lockDirectory } from './dir-lock.ts';

export type Row = Record<string, any>;

export interface Queryable {
  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs fn in one transaction. Inside fn use only the given tx: PGlite has a single session, so a query on the
   *  pool from inside a transaction waits for that transaction forever. */
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Queries sent since start: benchmarks and tests count queries per request with it. */
  readonly stats: { queries: number };
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

// Serialization failures and deadlocks are safe to retry: the transaction was rolled back as a whole.
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;

class PoolDb implements Db {
  readonly stats = { queries: 0 };
  readonly kind: 'postgres' | 'embedded';
  readonly pool: pg.Pool;
  readonly #onClose: () => Promise<void>;

  constructor(kind: 'postgres' | 'embedded', pool: pg.Pool, onClose: () => Promise<void> = async () => {}) {
    this.kind = kind;
    this.pool = pool;
    this.#onClose = onClose;
    // An idle client that loses its server (restart, failover) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
  }

  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    this.stats.queries++;
    return this.pool.query<R>(text, params as unknown[]);
  }

  async tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      const stats = this.stats;
      const tx: Queryable = {
        query: <R extends Row>(text: string, params?: readonly unknown[]) => {
          stats.queries++;
          return client.query<R>(text, params as unknown[]);
        },
      };
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => { broken = true; });
        if (attempt < MAX_ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
    await this.#onClose();
  }
}

export async function openDb(database: Config['database']): Promise<Db> {
  if (database.kind === 'postgres') {
    return new PoolDb('postgres', new pg.Pool({
      connectionString: database.url,
      max: database.poolSize,
      connectionTimeoutMillis: database.connectTimeoutMs,
      statement_timeout: database.statementTimeoutMs,
      // Bounded wait for a reply even if the server vanished without closing the socket.
      query_timeout: database.statementTimeoutMs + 1000,
      idleTimeoutMillis: 30_000,
      application_name: 'gatehouse',
    }));
  }
  const dir = join(database.dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  // PGlite does not lock its directory: a second process would silently lose writes (feasibility-findings.md Q1).
  const unlock = lockDirectory(database.dataDir);
  try {
    // Loaded lazily so that a production process on PostgreSQL never loads the WASM build.
    const { PGlite } = await import('@electric-sql/pglite');
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const pglite = await PGlite.create(dir);
    const pool = new pg.Pool({ ...(createPgConfig(pglite) as unknown as pg.PoolConfig), max: 1 });
    return new PoolDb('embedded', pool, async () => {
      await pglite.close();
      unlock();
    });
  } catch (error) {
    unlock();
    throw error;
  }
}
