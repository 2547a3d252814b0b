// Numbered, forward-only SQL migrations. Each file runs in its own transaction under a session advisory lock, so
// instances starting together apply each file exactly once and a failing file leaves the schema as it was.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const LOCK_KEY = 7_146_001; // arbitrary, constant: "gatehouse migrations"

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(`${dir}/${name}`, 'utf8');
      return { version: Number(name.slice(0, 4)), name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Applies pending migrations; returns the names applied by this call. The lock is a session's, hence a session of its
 *  own (the direct connection under a transaction pooler). */
export async function migrate(db: Db, migrations = listMigrations()): Promise<string[]> {
  const client = await db.session();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, ` +
        `applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    for (const m of migrations) {
      const previous = done.get(m.version);
      if (previous) {
        if (previous.checksum !== m.checksum) {
          throw new MigrationError(`migration ${m.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw new MigrationError(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
}

/** The newest migration version the database has, or 0; readiness compares it with the files shipped. */
export async function schemaVersion(db: Db): Promise<number> {
  // Out of band (Db.ping): readiness must answer even when every pool connection is busy.
  // Two statements: a query naming a missing table fails at parse time, whatever its CASE says.
  if ((await db.ping("SELECT to_regclass('schema_migrations') IS NOT NULL")) !== 'true') return 0;
  return Number((await db.ping('SELECT coalesce(max(version), 0) FROM schema_migrations')) ?? 0);
}
