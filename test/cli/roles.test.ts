// `gatehouse role add|list|remove` and `gatehouse grant add|list|remove`: the same rules as the management API (unknown
// role key refused, exit code 1), output as documented.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ADMIN_PASSWORD, freePort, TEST_MASTER_KEY } from '../helpers/server.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('gatehouse role and grant commands', () => {
  let database: TestDatabase;
  let port: number;
  beforeAll(async () => {
    database = await createTestDatabase();
    port = await freePort();
  });
  afterAll(async () => database?.drop());

  const run = (args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY,
        GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        LOG_LEVEL: 'warn',
        GATEHOUSE_ISSUER: `http://127.0.0.1:${port}`,
        ...database.env,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
  const json = (result: ReturnType<typeof run>) => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };

  // a CLI run migrates and opens the database: seconds each under load, so the steps are split
  const SLOW = 180_000;
  let projectId: string;
  let userId: string;
  let grantId: string;

  it(
    'role add and role list',
    () => {
      ({ projectId } = json(
        run(['app', 'create', '--project', 'Roles', '--name', 'web', '--redirect-uri', 'https://rp.example.com/cb']),
      ));
      const imported = ['--username', 'ada', '--email', 'ada@example.com', '--first-name', 'Ada', '--last-name', 'L'];
      ({ userId } = json(run(['user', 'import', ...imported])));
      expect(json(run(['role', 'add', '--project', projectId, '--key', 'reader']))).toMatchObject({ key: 'reader' });
      json(run(['role', 'add', '--project', projectId, '--key', 'writer', '--display-name', 'Writers']));
      expect(json(run(['role', 'list', '--project', projectId]))).toEqual([
        { key: 'reader', displayName: 'reader', group: '' },
        { key: 'writer', displayName: 'Writers', group: '' },
      ]);
    },
    SLOW,
  );

  it(
    'grant add refuses an unknown role key; grant list',
    () => {
      const refused = run(['grant', 'add', '--user', userId, '--project', projectId, '--role', 'nope']);
      expect(refused.status).toBe(1); // a precondition of the project, not malformed input (FAILED_PRECONDITION)
      expect(refused.stderr).toMatch(/Project role "nope" not found on the project \(COMMAND-mm9F4\)/);
      ({ grantId } = json(
        run(['grant', 'add', '--user', userId, '--project', projectId, '--role', 'reader', '--role', 'writer']),
      ));
      expect(json(run(['grant', 'list', '--project', projectId]))).toEqual([
        { grantId, userId, userName: 'ada', projectId, roleKeys: ['reader', 'writer'], state: 'active' },
      ]);
    },
    SLOW,
  );

  it(
    'role remove takes the role out of the grant; grant remove',
    () => {
      json(run(['role', 'remove', '--project', projectId, '--key', 'writer']));
      expect(json(run(['grant', 'list', '--user', userId]))[0].roleKeys).toEqual(['reader']);
      json(run(['grant', 'remove', '--grant', grantId]));
      expect(json(run(['grant', 'list', '--user', userId]))).toEqual([]);
      expect(run(['role', 'add', '--project', projectId]).status).toBe(2); // --key missing
    },
    SLOW,
  );
});
