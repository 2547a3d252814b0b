// Prepares one migrated template database per run; each test file clones it (CREATE DATABASE ... TEMPLATE on
// PostgreSQL, a directory copy for embedded PGlite), which is far faster than migrating per file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDb } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { adminUrl, databaseUrl } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    template: { kind: 'postgres'; name: string; prefix: string } | { kind: 'embedded'; dir: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const prefix = `gh_test_${Date.now().toString(36)}_`;
    const name = `${prefix}tmpl`;
    const admin = new pg.Client({ connectionString: adminUrl(serverUrl) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const db = await openDb({
      kind: 'postgres',
      url: databaseUrl(serverUrl, name),
      poolSize: 2,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 30000,
    });
    await migrate(db);
    await db.close();
    project.provide('template', { kind: 'postgres', name, prefix });
    return async () => {
      const client = new pg.Client({ connectionString: adminUrl(serverUrl) });
      await client.connect();
      const { rows } = await client.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`${prefix}%`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      await client.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-template-'));
  const db = await openDb({ kind: 'embedded', dataDir: dir });
  await migrate(db);
  await db.close();
  project.provide('template', { kind: 'embedded', dir });
  return async () => rmSync(dir, { recursive: true, force: true });
}
