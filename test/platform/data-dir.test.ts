// The embedded data directory is its owner's alone (src/platform/data-dir.ts): a first start creates every directory
// 0700 and every file 0600 (PGlite's files and WAL, master.key, the lock, the admin password), and a start on a
// directory left readable by others (an older version, a copy, a hand-made one) tightens it and logs that.
// The embedded database on every run: the directory is what is tested.
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';
import type { TestDatabase } from '../helpers/database.ts';

/** Every entry under dir (dir included) with its permission bits. */
function modes(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const stat = lstatSync(dir);
  const own = { path: dir, mode: stat.mode & 0o777, isDir: stat.isDirectory() };
  if (!stat.isDirectory()) return [own];
  return [own, ...readdirSync(dir).flatMap((entry) => modes(join(dir, entry)))];
}

const readableByOthers = (dir: string) =>
  modes(dir)
    .filter((e) => (e.mode & 0o077) !== 0)
    .map((e) => `${e.path} ${e.mode.toString(8)}`);

describe('the embedded data directory', () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-datadir-'));
  const dataDir = join(parent, 'data'); // does not exist yet
  const database: TestDatabase = {
    env: { GATEHOUSE_DATA_DIR: dataDir },
    database: { kind: 'embedded', dataDir },
    drop: async () => {},
  };
  // the embedded database even when the suite runs on PostgreSQL; the master key and admin password are generated
  const env = { DATABASE_URL: '', GATEHOUSE_MASTER_KEY: '', GATEHOUSE_ADMIN_PASSWORD: '' };
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('a first start creates every directory 0700 and every file 0600', async () => {
    const server = await startTestServer({ database, env });
    try {
      expect(server.config.database.kind).toBe('embedded');
      // whatever the process creates from now on is its own (the server runs in this process)
      expect(process.umask()).toBe(0o077);
      // written while running: the WAL, the lock file
      await server.db.query('CREATE TABLE scratch AS SELECT g FROM generate_series(1, 5000) g');
      const entries = modes(dataDir);
      expect(entries.map((e) => e.path)).toEqual(
        expect.arrayContaining([
          join(dataDir, 'master.key'),
          join(dataDir, 'gatehouse.lock'),
          join(dataDir, 'admin-password.txt'),
          join(dataDir, 'pg', 'pg_wal'),
        ]),
      );
      expect(entries.length).toBeGreaterThan(100);
      expect(readableByOthers(dataDir)).toEqual([]);
      expect(entries.filter((e) => e.isDir).every((e) => e.mode === 0o700)).toBe(true);
      expect(server.logs.join('')).not.toContain('tightened the data directory');
    } finally {
      await server.close();
    }
    expect(readableByOthers(dataDir)).toEqual([]);
  });

  it('a start on a directory readable by others tightens it and logs that it did', async () => {
    for (const entry of modes(dataDir)) chmodSync(entry.path, entry.isDir ? 0o755 : 0o644);
    chmodSync(join(dataDir, 'pg', 'pg_wal'), 0o777);
    const wal = readdirSync(join(dataDir, 'pg', 'pg_wal')).find((name) => /^[0-9A-F]{24}$/.test(name))!;
    chmodSync(join(dataDir, 'pg', 'pg_wal', wal), 0o666);
    expect(readableByOthers(dataDir).length).toBeGreaterThan(100);

    const server = await startTestServer({ database, env });
    try {
      expect(readableByOthers(dataDir)).toEqual([]);
      const line = server.logs
        .flatMap((chunk) => chunk.split('\n'))
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((l) => String(l.msg).startsWith('tightened the data directory'));
      expect(line).toMatchObject({ level: 40, dataDir });
      expect(line.entries).toBeGreaterThan(100);
      await server.db.query('CREATE TABLE scratch2 AS SELECT g FROM generate_series(1, 5000) g');
    } finally {
      await server.close();
    }
    expect(readableByOthers(dataDir)).toEqual([]);
  });
});
