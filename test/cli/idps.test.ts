// `gatehouse idp list` and `gatehouse idp link list`: the instance's JWT IdPs with their place on the login policy, and
// a user's linked identities, read through the management API's service functions.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ADMIN_PASSWORD, freePort, TEST_MASTER_KEY } from '../helpers/server.ts';
import { openDb } from '../../src/platform/db.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { addIdpToLoginPolicy } from '../../src/idps/login-policy.ts';
import { linkIdentity } from '../../src/idps/links.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const CONFIG = {
  stylingType: 'STYLING_TYPE_UNSPECIFIED',
  jwtEndpoint: 'https://legacy.example.com/jwt',
  issuer: 'https://legacy.example.com',
  keysEndpoint: 'https://legacy.example.com/keys',
  headerName: 'x-auth',
} as const;

describe('gatehouse idp commands', () => {
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

  it('idp list and idp link list', { timeout: 180_000 }, async () => {
    const imported = ['--username', 'ida', '--email', 'ida@example.com', '--first-name', 'Ida', '--last-name', 'L'];
    const { userId } = json(run(['user', 'import', ...imported]));
    // the CLI has set up the instance; the IdPs come as AddJWTIDP and AddIDPToLoginPolicy make them
    const db = await openDb(database.database);
    let listed: string;
    let unlisted: string;
    try {
      const instanceId = (await db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
      const orgId = (await db.query<{ org_id: string }>('SELECT org_id FROM users WHERE id = $1', [userId])).rows[0]!
        .org_id;
      ({ idpId: listed } = await addJwtIdp(db, instanceId, { ...CONFIG, name: 'Legacy', autoRegister: true }, 't'));
      ({ idpId: unlisted } = await addJwtIdp(db, instanceId, { ...CONFIG, name: 'Other', autoRegister: false }, 't'));
      await addIdpToLoginPolicy(db, { instanceId, idpId: listed, editor: 't' });
      await db.tx((tx) =>
        linkIdentity(tx, userId, orgId, { idpId: listed, externalUserId: 'ext-ida', displayName: 'Ida L' }),
      );
    } finally {
      await db.close();
    }
    const { stylingType: _, ...endpoints } = CONFIG;
    const shown = { state: 'active', ...endpoints };
    expect(json(run(['idp', 'list']))).toEqual([
      { idpId: listed, name: 'Legacy', loginPolicy: true, autoRegister: true, ...shown },
      { idpId: unlisted, name: 'Other', loginPolicy: false, autoRegister: false, ...shown },
    ]);
    expect(json(run(['idp', 'link', 'list', '--user', userId]))).toEqual([
      { idpId: listed, idpName: 'Legacy', externalUserId: 'ext-ida', displayName: 'Ida L' },
    ]);
    const table = run(['idp', 'link', 'list', '--user', userId, '--output', 'table']);
    expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^${listed}\\s+Legacy\\s+ext-ida\\s+Ida L$`));
    const missing = run(['idp', 'link', 'list']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--user is required/);
    const unknown = run(['idp', 'link', 'list', '--user', '404']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/User could not be found/);
  });
});
