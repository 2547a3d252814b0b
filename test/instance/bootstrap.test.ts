import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { freePort, startTestServer, testEnv } from '../helpers/server.ts';
import { spawnGatehouse, waitForOk } from '../helpers/process.ts';
import { verifyPassword } from '../../src/users/passwords.ts';
import { Browser, createOidcApp, pkceAuthorization } from '../helpers/oidc.ts';
import { openDb } from '../../src/platform/db.ts';

describe('first start', () => {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'gatehouse-key-')), 'admin.json');
  let firstInstanceId = '';
  const database = createTestDatabase();
  afterAll(async () => (await database).drop());

  it('creates the instance, its first org, the admin (IAM_OWNER + ORG_OWNER) and the admin service account key file', async () => {
    const server = await startTestServer({
      database: await database,
      env: { GATEHOUSE_ADMIN_KEY_FILE: keyFile, GATEHOUSE_ADMIN_USERNAME: 'root' },
    });
    try {
      const { db } = server;
      const instance = (
        await db.query<{ id: string; domain: string; default_org_id: string }>('SELECT * FROM instance')
      ).rows[0]!;
      firstInstanceId = instance.id;
      expect(instance.domain).toBe('127.0.0.1');
      const orgs = (await db.query('SELECT * FROM orgs')).rows;
      expect(orgs).toHaveLength(1);
      expect(orgs[0]).toMatchObject({
        id: instance.default_org_id,
        name: 'Gatehouse',
        primary_domain: 'gatehouse.127.0.0.1',
      });
      const admin = (
        await db.query<{ id: string; password_hash: string }>("SELECT * FROM users WHERE user_name = 'root'")
      ).rows[0]!;
      expect(admin).toMatchObject({ type: 'human', org_id: orgs[0]!.id, state: 'active', email_verified: true });
      expect(admin.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword('Admin-Password-1', admin.password_hash)).toBe(true);
      const roles = (
        await db.query('SELECT resource_type, roles FROM memberships WHERE user_id = $1 ORDER BY resource_type', [
          admin.id,
        ])
      ).rows;
      expect(roles).toEqual([
        { resource_type: 'instance', roles: ['IAM_OWNER'] },
        { resource_type: 'org', roles: ['ORG_OWNER'] },
      ]);

      // ZITADEL's service account key file, readable only by its owner, whose public half is registered.
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const file = JSON.parse(readFileSync(keyFile, 'utf8'));
      expect(Object.keys(file).sort()).toEqual(['expirationDate', 'key', 'keyId', 'type', 'userId']);
      expect(file.type).toBe('serviceaccount');
      expect(file.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
      const machine = (await db.query('SELECT * FROM users WHERE id = $1', [file.userId])).rows[0]!;
      expect(machine).toMatchObject({ type: 'machine', user_name: 'root-sa' });
      const machineRoles = (
        await db.query('SELECT resource_type, roles FROM memberships WHERE user_id = $1', [file.userId])
      ).rows;
      expect(machineRoles).toEqual([{ resource_type: 'instance', roles: ['IAM_OWNER'] }]);
      const stored = (
        await db.query<{ public_jwk: { d?: string; n?: string } }>(
          'SELECT public_jwk FROM machine_keys WHERE id = $1 AND user_id = $2',
          [file.keyId, file.userId],
        )
      ).rows[0]!;
      expect(stored.public_jwk.d).toBeUndefined();
      expect(createPublicKey(createPrivateKey(file.key)).export({ format: 'jwk' }).n).toBe(stored.public_jwk.n);

      // the private key never reaches the database or the log
      const dump = JSON.stringify((await db.query('SELECT * FROM events')).rows);
      expect(dump).not.toContain('PRIVATE KEY');
      expect(server.logs.join('')).not.toContain('PRIVATE KEY');
      const events = (await db.query('SELECT event_type FROM events ORDER BY sequence')).rows.map((r) => r.event_type);
      expect(events).toEqual([
        'org.added',
        'org.domain.added',
        'user.human.added',
        'org.member.added',
        'instance.member.added',
        'user.machine.added',
        'instance.member.added',
      ]);
    } finally {
      await server.close();
    }
  });

  it('a restart keeps the instance, org and admin and changes nothing', async () => {
    const server = await startTestServer({
      database: await database,
      env: {
        GATEHOUSE_ADMIN_KEY_FILE: keyFile,
        GATEHOUSE_ADMIN_USERNAME: 'other',
        GATEHOUSE_ADMIN_PASSWORD: 'another-password',
      },
    });
    try {
      const { db } = server;
      expect((await db.query('SELECT id FROM instance')).rows).toEqual([{ id: firstInstanceId }]);
      expect((await db.query('SELECT count(*)::int AS n FROM orgs')).rows[0]!.n).toBe(1);
      expect((await db.query("SELECT count(*)::int AS n FROM users WHERE user_name = 'other'")).rows[0]!.n).toBe(0);
      expect((await db.query('SELECT count(*)::int AS n FROM events')).rows[0]!.n).toBe(7);
    } finally {
      await server.close();
    }
  });

  it('writes a generated admin password to an owner-only file in the data directory and logs only its path', async () => {
    const fresh = await createTestDatabase();
    // with PostgreSQL too, the file goes to GATEHOUSE_DATA_DIR (here a directory that does not exist yet)
    const dataDir = isPostgres
      ? join(mkdtempSync(join(tmpdir(), 'gatehouse-data-')), 'data')
      : fresh.env.GATEHOUSE_DATA_DIR!;
    const server = await startTestServer({
      database: fresh,
      env: { GATEHOUSE_ADMIN_PASSWORD: '', GATEHOUSE_DATA_DIR: dataDir },
    });
    try {
      const file = join(dataDir, 'admin-password.txt');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      const log = server.logs.join('');
      expect(log).not.toContain(password);
      const line = JSON.parse(server.logs.find((l) => l.includes('generated password'))!);
      expect(line).toMatchObject({ level: 40, userName: 'admin', file });
      expect(line.msg).toContain(file);
      // the password in the file signs in on the login pages
      const app = await createOidcApp(server);
      const { url } = await pkceAuthorization(server, app.clientId);
      const callback = await new Browser(server).authorize(url, 'admin', password);
      expect(callback.searchParams.get('code')).toBeTruthy();
    } finally {
      await server.stop();
      await fresh.drop();
      if (isPostgres) rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });

  it.runIf(isPostgres)(
    'two processes starting at once on an empty database produce one instance, one org and one admin',
    async () => {
      const fresh = await createTestDatabase({ empty: true });
      try {
        const ports = [await freePort(), await freePort()];
        const procs = ports.map((port) => spawnGatehouse(testEnv(port, fresh, { LOG_LEVEL: 'warn' })));
        try {
          await Promise.all(ports.map((port) => waitForOk(`http://127.0.0.1:${port}/readyz`)));
        } finally {
          for (const p of procs) p.child.kill('SIGTERM');
          await Promise.all(procs.map((p) => p.exited()));
        }
        const db = await openDb(fresh.database);
        try {
          expect((await db.query('SELECT count(*)::int AS n FROM instance')).rows[0]!.n).toBe(1);
          expect((await db.query('SELECT count(*)::int AS n FROM orgs')).rows[0]!.n).toBe(1);
          expect((await db.query("SELECT count(*)::int AS n FROM users WHERE user_name = 'admin'")).rows[0]!.n).toBe(1);
        } finally {
          await db.close();
        }
      } finally {
        await fresh.drop();
      }
    },
  );
});
