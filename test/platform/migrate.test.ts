import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/platform/db.ts';
import { listMigrations, migrate, MigrationError, MIGRATIONS_DIR, schemaVersion } from '../../src/platform/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';

describe('migrations', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!();
  });

  async function emptyDb(): Promise<{ db: Db; database: TestDatabase }> {
    const database = await createTestDatabase({ empty: true });
    const db = await openDb(database.database);
    cleanup.push(
      () => database.drop(),
      () => db.close(),
    );
    return { db, database };
  }

  it('apply from zero, then are idempotent', async () => {
    const { db } = await emptyDb();
    expect(await schemaVersion(db)).toBe(0);
    const all = listMigrations();
    expect(await migrate(db)).toEqual(all.map((m) => m.name));
    expect(await schemaVersion(db)).toBe(all.at(-1)!.version);
    expect(await migrate(db)).toEqual([]);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]!.n).toBe(all.length);
  });

  it('a failing migration leaves the schema unchanged and names the file and the SQL error', async () => {
    const { db } = await emptyDb();
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-migrations-'));
    for (const m of listMigrations()) copyFileSync(join(MIGRATIONS_DIR, m.name), join(dir, m.name));
    writeFileSync(join(dir, '9998_good_part.sql'), 'CREATE TABLE will_survive (id int);');
    writeFileSync(
      join(dir, '9999_broken.sql'),
      'CREATE TABLE half_done (id int);\nSELECT no_such_column FROM half_done;',
    );
    const error = await migrate(db, listMigrations(dir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/9999_broken\.sql failed: column "no_such_column" does not exist/);
    const { rows } = await db.query("SELECT to_regclass('half_done') AS half, to_regclass('will_survive') AS good");
    expect(rows[0]).toEqual({ half: null, good: 'will_survive' });
    expect(await schemaVersion(db)).toBe(9998);
  });

  it('refuses to run when an applied migration file was edited', async () => {
    const { db } = await emptyDb();
    await migrate(db);
    const edited = listMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'edited' } : m));
    await expect(migrate(db, edited)).rejects.toThrow(/0001_core\.sql was changed after it was applied/);
  });

  it.runIf(isPostgres)('several instances migrating at once apply each file exactly once', async () => {
    const { database } = await emptyDb();
    const dbs = await Promise.all([1, 2, 3].map(() => openDb(database.database)));
    cleanup.push(async () => {
      await Promise.all(dbs.map((d) => d.close()));
    });
    const results = await Promise.all(dbs.map((d) => migrate(d)));
    expect(results.flat().sort()).toEqual(
      listMigrations()
        .map((m) => m.name)
        .sort(),
    );
  });
});
