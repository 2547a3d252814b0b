// Signing key rotation (OIDC Core §10.1.1): a new key is published before it signs, tokens signed by the old key keep
// working while it stays published, it is dropped once its tokens have expired, and every process on the database
// follows without restart.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { assertion, createMachine, postForm, secrets } from '../helpers/oidc.ts';
import { rotateKeys } from '../../src/oidc/keys.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

async function kids(server: TestServer): Promise<string[]> {
  const { keys } = (await (await fetch(`${server.url}/oauth/v2/keys`)).json()) as { keys: Array<{ kid: string }> };
  return keys.map((k) => k.kid);
}

/** Polls until `fn` holds. A request that failed on the network (a connection reset while the machine was loaded:
 *  seen once in a full PostgreSQL run) is tried again, as a client retries an idempotent GET; any other error fails. */
async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch((error: unknown) => {
      if (error instanceof TypeError && error.message === 'fetch failed') return undefined;
      throw error;
    });
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('signing key rotation', () => {
  let server: TestServer;
  const env = {
    GATEHOUSE_KEY_ACTIVATION_DELAY: '2',
    GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '100',
    GATEHOUSE_ACCESS_TOKEN_TTL: '4',
    GATEHOUSE_ID_TOKEN_TTL: '4',
  };
  beforeAll(async () => {
    server = await startTestServer({ env });
  });
  afterAll(async () => server?.stop());

  it('publishes first, signs after the delay, keeps the old key for its tokens, then drops it', async () => {
    const machine = await createMachine(server, 'jwt');
    const issue = async () =>
      (
        await postForm(`${server.url}/oauth/v2/token`, {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: await assertion(machine.keyFile, server.url),
          scope: 'openid',
        })
      ).json;
    const oldKid = (await kids(server))[0]!;
    const before = await issue();
    expect(decodeProtectedHeader(before.access_token).kid).toBe(oldKid);

    const { kid: newKid } = await rotateKeys(server.db, secrets, 2);
    await until('the new key in the JWKS', async () => (await kids(server)).includes(newKid));
    expect(await kids(server)).toContain(oldKid);
    const during = await issue();
    expect(decodeProtectedHeader(during.id_token).kid).toBe(oldKid); // published, not yet signing

    await until(
      'tokens signed with the new key',
      async () => decodeProtectedHeader((await issue()).access_token).kid === newKid,
    );
    const after = await issue();
    expect(decodeProtectedHeader(after.id_token).kid).toBe(newKid);
    expect((await kids(server))[0]).toBe(newKid);
    // the old key's token still works while it is published
    const userinfo = (t: string) =>
      fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${t}` } });
    expect((await userinfo(during.access_token)).status).toBe(200);
    expect((await userinfo(after.access_token)).status).toBe(200);

    // once every token it signed has expired (4 s here), the old key leaves the JWKS
    await until('the old key to be dropped', async () => !(await kids(server)).includes(oldKid), 15_000);
    expect(await kids(server)).toEqual([newKid]);
  });

  it('rotates automatically on the configured schedule', async () => {
    const auto = await startTestServer({
      env: { ...env, GATEHOUSE_KEY_ROTATION_DAYS: String(2 / 86400), GATEHOUSE_KEY_ACTIVATION_DELAY: '0' },
    });
    try {
      const [first] = await kids(auto);
      await until('an automatic rotation', async () => (await kids(auto))[0] !== first);
    } finally {
      await auto.stop();
    }
  });

  it.runIf(isPostgres)('npm run keys:rotate reaches every process on the database without restart', async () => {
    const second = await startTestServer({ env: { ...env, GATEHOUSE_ISSUER: server.url }, database: server.database });
    try {
      const out = spawnSync(process.execPath, [CLI, 'keys:rotate'], {
        env: {
          PATH: process.env.PATH ?? '',
          GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY,
          GATEHOUSE_KEY_ACTIVATION_DELAY: '1',
          ...server.database.env,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(out.status).toBe(0);
      const { kid } = JSON.parse(out.stdout);
      for (const s of [server, second])
        await until('the rotated key on every instance', async () => (await kids(s))[0] === kid);
      // a token issued by one instance is accepted by the other
      const machine = await createMachine(server, 'jwt');
      const token = (
        await postForm(`${server.url}/oauth/v2/token`, {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: await assertion(machine.keyFile, server.url),
          scope: 'openid',
        })
      ).json;
      expect(
        (await fetch(`${second.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token.access_token}` } }))
          .status,
      ).toBe(200);
    } finally {
      await second.close();
    }
  });
});
