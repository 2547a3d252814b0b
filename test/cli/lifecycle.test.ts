// The lifecycle commands: `user list|lock|unlock|remove` and `app list|remove|regenerate-secret|require-par`, run as
// the operator runs them, on a fresh database; outputs, exit codes (0 done, 1 failed, 2 usage) and their effects.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ADMIN_PASSWORD, TEST_MASTER_KEY } from '../helpers/server.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('gatehouse lifecycle commands', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  const run = (args: string[], input = '') =>
    spawnSync(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY,
        GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        GATEHOUSE_ISSUER: 'http://127.0.0.1:1',
        LOG_LEVEL: 'warn',
        ...database.env,
      },
      input,
      encoding: 'utf8',
      timeout: 60_000,
    });
  const json = (result: ReturnType<typeof run>) => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };

  // each command is a process that opens the database: minutes on a loaded two-core machine
  it('user list, lock, unlock and remove', { timeout: 300_000 }, () => {
    const imported = ['ada', 'Adam', 'bob'].map((name) => {
      const user = [
        '--username',
        `cli-${name}`,
        '--email',
        `${name}@example.com`,
        '--first-name',
        'A',
        '--last-name',
        'B',
      ];
      return json(run(['user', 'import', ...user, '--password-stdin'], 'Cli-Password-1\n'));
    });
    const listed = json(run(['user', 'list', '--user-name-prefix', 'CLI-AD']));
    expect(listed.totalResult).toBe('2');
    expect(listed.users.map((u: { userName: string }) => u.userName)).toEqual(['cli-ada', 'cli-Adam']);
    expect(listed.users[0]).toMatchObject({
      type: 'human',
      state: 'active',
      loginName: expect.stringMatching(/^cli-ada@/),
    });

    const ada = imported[0].userId as string;
    expect(json(run(['user', 'lock', '--id', ada]))).toEqual({ userId: ada, state: 'locked' });
    const again = run(['user', 'lock', '--id', ada]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/User should be active/);
    expect(json(run(['user', 'unlock', '--id', ada]))).toEqual({ userId: ada, state: 'active' });
    expect(json(run(['user', 'remove', '--id', ada]))).toEqual({ userId: ada, state: 'removed' });
    const table = run(['user', 'list', '--user-name-prefix', 'cli-ada', '--output', 'table']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^userId\s+userName\s+loginName\s+type\s+state\n\d+\s+cli-Adam\s/);
    const tooMany = run(['user', 'list', '--limit', '1001']);
    expect(tooMany.status).toBe(2);
    expect(tooMany.stderr).toMatch(/--limit must be 1 to 1000/);
  });

  it('app list, regenerate-secret and remove', { timeout: 300_000 }, () => {
    const created = json(
      run(['app', 'create', '--project', 'CLI Life', '--name', 'web', '--redirect-uri', 'https://rp.example.com/cb']),
    );
    const listed = json(run(['app', 'list', '--project-id', created.projectId]));
    expect(listed).toEqual({
      totalResult: '1',
      apps: [{ appId: created.appId, name: 'web', kind: 'oidc', clientId: created.clientId, state: 'active' }],
    });
    const rotated = json(run(['app', 'regenerate-secret', '--project-id', created.projectId, '--id', created.appId]));
    expect(rotated.clientId).toBe(created.clientId);
    expect(rotated.clientSecret.length).toBeGreaterThanOrEqual(32);
    expect(rotated.clientSecret).not.toBe(created.clientSecret);
    const ref = ['--project-id', created.projectId, '--id', created.appId];
    expect(json(run(['app', 'require-par', ...ref]))).toEqual({ appId: created.appId, requirePar: true });
    expect(run(['app', 'require-par', ...ref]).stderr).toMatch(/No changes/);
    expect(json(run(['app', 'require-par', ...ref, '--off']))).toEqual({ appId: created.appId, requirePar: false });
    expect(json(run(['app', 'remove', '--project-id', created.projectId, '--id', created.appId]))).toEqual({
      appId: created.appId,
      removed: true,
    });
    expect(json(run(['app', 'list', '--project-id', created.projectId]))).toEqual({ totalResult: '0', apps: [] });
    const gone = run(['app', 'remove', '--project-id', created.projectId, '--id', created.appId]);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(/App not found/);
    expect(run(['app', 'list', '--project-id', '404']).status).toBe(1);
  });
});
