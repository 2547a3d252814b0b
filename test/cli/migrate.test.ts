import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { listMigrations } from '../../src/platform/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { TEST_MASTER_KEY } from '../helpers/server.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('gatehouse migrate', () => {
  let database: TestDatabase;
  afterAll(async () => database?.drop());

  it('applies every migration to an empty database, then nothing', async () => {
    database = await createTestDatabase({ empty: true });
    const first = run(['migrate'], database.env);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ applied: listMigrations().map((m) => m.name) });
    const second = run(['migrate'], database.env);
    expect(JSON.parse(second.stdout)).toEqual({ applied: [] });
  });

  it('prints usage with exit code 2 for an unknown command, and help with 0', () => {
    const unknown = run(['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    const help = run(['migrate', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: gatehouse migrate/);
  });
});
