// A fresh, migrated database for one test file, cloned from the run's template (see global-setup.ts).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Config } from '../../src/config.ts';
import { openDb, type Db } from '../../src/platform/db.ts';
import { adminUrl, databaseUrl } from './postgres.ts';

export interface TestDatabase {
  /** Environment variables that point Gatehouse at this database. */
  env: Record<string, string>;
  database: Config['database'];
  drop(): Promise<void>;
}

/** A migrated database (default), or an empty one with `{ empty: true }`; an embedded one in `dir` when given (a new
 *  temporary directory by default). */
export async function createTestDatabase(options: { empty?: boolean; dir?: string } = {}): Promise<TestDatabase> {
  const template = inject('template');
  if (template.kind === 'postgres') {
    const serverUrl = process.env.DATABASE_URL!;
    const name = `${template.prefix}${randomBytes(6).toString('hex')}`;
    await adminQuery(serverUrl, `CREATE DATABASE ${name} TEMPLATE ${options.empty ? 'template0' : template.name}`);
    const url = databaseUrl(serverUrl, name);
    return {
      env: { DATABASE_URL: url },
      database: { kind: 'postgres', url, poolSize: 5, connectTimeoutMs: 5000, statementTimeoutMs: 10000 },
      drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  if (!options.empty) cpSync(template.dir, dir, { recursive: true });
  return {
    env: { GATEHOUSE_DATA_DIR: dir },
    database: { kind: 'embedded', dataDir: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(serverUrl) });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A migrated database opened for the calling file's tests: created before them, closed and dropped after them. The
 * returned Db stands for it from the first test on (it forwards to the database opened in beforeAll).
 */
export function useTestDb(): Db {
  let database: TestDatabase | undefined;
  let opened: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openDb(database.database);
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });
  return new Proxy({} as Db, {
    get(_, key) {
      if (!opened) throw new Error('the test database is opened in beforeAll: use it inside tests');
      const value = Reflect.get(opened, key);
      return typeof value === 'function' ? value.bind(opened) : value;
    },
  });
}
