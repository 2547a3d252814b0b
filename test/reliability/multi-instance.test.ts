// Several Gatehouse processes on one PostgreSQL database behind one issuer: whatever one instance does is seen by the
// others on their next request.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/platform/db.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { rotateKeys } from '../../src/oidc/keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { spawnGatehouse, waitForOk, type GatehouseProcess } from '../helpers/process.ts';
import { freePort, testEnv, TEST_MASTER_KEY } from '../helpers/server.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';
import * as client from 'openid-client';
import { ADMIN_PASSWORD, basic, Browser, CALLBACK, postForm } from '../helpers/oidc.ts';
import type { TestServer } from '../helpers/server.ts';
import { until } from '../helpers/load.ts';

/** A management answer: the ids and credentials this file reads, and any other member by name. */
interface ManagementJson {
  id: string;
  appId: string;
  userId: string;
  clientId: string;
  clientSecret: string;
  [member: string]: unknown;
}

describe.runIf(isPostgres)('many instances on one database', () => {
  let database: TestDatabase;
  let db: Db;
  const procs: GatehouseProcess[] = [];
  let a = '';
  let b = '';
  let issuer = '';
  let adminToken = '';

  const api = async (base: string, method: string, path: string, body?: unknown, token = adminToken) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as ManagementJson };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-multi-')), 'admin.json');
    const ports = [await freePort(), await freePort()];
    issuer = `http://127.0.0.1:${ports[0]}`;
    // Both start at once on the fresh database: they bootstrap once (test/instance/bootstrap.test.ts checks counts).
    for (const port of ports) {
      procs.push(
        spawnGatehouse(
          testEnv(port, database, {
            GATEHOUSE_ISSUER: issuer,
            GATEHOUSE_ADMIN_KEY_FILE: keyPath,
            GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '200',
            LOG_LEVEL: 'warn',
          }),
        ),
      );
    }
    [a, b] = ports.map((p) => `http://127.0.0.1:${p}`) as [string, string];
    await Promise.all([a, b].map((base) => waitForOk(`${base}/readyz`)));
    adminToken = await jwtProfileToken({ url: a, config: { issuer } }, JSON.parse(readFileSync(keyPath, 'utf8')));
    db = await openDb(database.database);
  }, 60_000);

  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited()));
    await db?.close();
    await database?.drop();
  });

  it('a token issued by one instance is introspected, used and revoked on another', async () => {
    const project = await api(a, 'POST', '/management/v1/projects', { name: 'Multi Project' });
    expect(project.status).toBe(200);
    const projectId = project.json.id as string;
    const apiApp = await api(a, 'POST', `/management/v1/projects/${projectId}/apps/api`, {
      name: 'resource server',
      authMethodType: 'API_AUTH_METHOD_TYPE_BASIC',
    });
    expect(apiApp.status).toBe(200);
    const machine = await api(a, 'POST', '/management/v1/users/machine', {
      userName: 'multi-svc',
      name: 'Multi service',
    });
    expect(machine.status).toBe(200);
    const secret = await api(a, 'PUT', `/management/v1/users/${machine.json.userId}/secret`, {});
    expect(secret.status).toBe(200);

    const issued = await postForm(
      `${a}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: `openid profile urn:zitadel:iam:org:project:id:${projectId}:aud` },
      { authorization: basic(secret.json.clientId, secret.json.clientSecret) },
    );
    expect(issued.status).toBe(200);
    const accessToken = issued.json.access_token as string;
    const introspect = (base: string) =>
      postForm(
        `${base}/oauth/v2/introspect`,
        { token: accessToken },
        { authorization: basic(apiApp.json.clientId, apiApp.json.clientSecret) },
      );
    expect((await introspect(b)).json).toMatchObject({ active: true, sub: machine.json.userId });
    const userinfo = await fetch(`${b}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: machine.json.userId });

    const revoked = await postForm(
      `${b}/oauth/v2/revoke`,
      { token: accessToken },
      { authorization: basic(secret.json.clientId, secret.json.clientSecret) },
    );
    expect(revoked.status).toBe(200);
    expect((await introspect(a)).json).toEqual({ active: false });
    expect((await fetch(`${a}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(
      401,
    );
  });

  it('an app change and a user deactivation made through one instance are enforced by the other at once', async () => {
    const project = await api(a, 'POST', '/management/v1/projects', { name: 'Change Project' });
    const app = await api(a, 'POST', `/management/v1/projects/${project.json.id}/apps/oidc`, {
      name: 'web',
      redirectUris: ['https://one.example.com/cb'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
    expect(app.status).toBe(200);
    const authorize = (base: string, redirectUri: string) =>
      fetch(
        `${base}/oauth/v2/authorize?${new URLSearchParams({
          client_id: app.json.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'openid',
        })}`,
        { redirect: 'manual' },
      );
    expect((await authorize(b, 'https://two.example.com/cb')).status).toBe(400); // not registered yet: error page
    const updated = await api(
      a,
      'PUT',
      `/management/v1/projects/${project.json.id}/apps/${app.json.appId}/oidc_config`,
      {
        redirectUris: ['https://one.example.com/cb', 'https://two.example.com/cb'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      },
    );
    expect(updated.status).toBe(200);
    const now = await authorize(b, 'https://two.example.com/cb');
    expect(now.status).toBe(303);
    expect(now.headers.get('location')).toMatch(/^\/ui\/login\//);

    const machine = await api(a, 'POST', '/management/v1/users/machine', {
      userName: 'to-deactivate',
      name: 'Leaving',
    });
    const secret = await api(a, 'PUT', `/management/v1/users/${machine.json.userId}/secret`, {});
    const issued = await postForm(
      `${b}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(secret.json.clientId, secret.json.clientSecret) },
    );
    const userinfo = () =>
      fetch(`${b}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${issued.json.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    expect((await api(a, 'POST', `/management/v1/users/${machine.json.userId}/_deactivate`, {})).status).toBe(200);
    expect((await userinfo()).status).toBe(401);
    const again = await postForm(
      `${b}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(secret.json.clientId, secret.json.clientSecret) },
    );
    expect(again.status).toBeGreaterThanOrEqual(400);
  });

  it('a login started on one instance finishes on another', async () => {
    const project = await api(a, 'POST', '/management/v1/projects', { name: 'Login Project' });
    const app = await api(a, 'POST', `/management/v1/projects/${project.json.id}/apps/oidc`, {
      name: 'web',
      redirectUris: [CALLBACK],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
    const verifier = client.randomPKCECodeVerifier();
    const params = {
      client_id: app.json.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    // The browser's cookies are per host, not per port: both instances see them, as behind one balancer. That balancer
    // is what the instances see the browser through: it says so in X-Forwarded-For, so B does not send the pages'
    // requests to the issuer's host (which it does for a browser that reached it by another name).
    const balanced = { 'x-forwarded-for': '127.0.0.1' };
    const browser = new Browser({ url: b, config: { issuer } } as TestServer, balanced);
    const started = await browser.request(`${a}/oauth/v2/authorize?${new URLSearchParams(params)}`);
    expect(started.status).toBe(303);
    const loginPath = started.headers.get('location')!;
    expect(loginPath).toMatch(/^\/ui\/login\//);
    // The login pages run on B; they send the browser back to the issuer's resume URL, here served by A.
    const resume = await browser.authorize(new URL(loginPath, b), 'admin', ADMIN_PASSWORD);
    expect(resume.toString().startsWith(`${a}/oauth/v2/authorize/`)).toBe(true);
    const onA = new Browser({ url: a, config: { issuer } } as TestServer);
    for (const [name, value] of browser.cookies) onA.cookies.set(name, value);
    const callback = new URL((await onA.follow(resume.toString())).url);
    expect(callback.toString().startsWith(CALLBACK)).toBe(true);
    const tokens = await postForm(
      `${a}/oauth/v2/token`,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        code_verifier: verifier,
      },
      { authorization: basic(app.json.clientId, app.json.clientSecret) },
    );
    expect(tokens.status).toBe(200);
    expect(tokens.json.id_token).toBeTruthy();
  });

  it('a request pushed to one instance is used on another, once', async () => {
    const project = await api(a, 'POST', '/management/v1/projects', { name: 'PAR Project' });
    const app = await api(a, 'POST', `/management/v1/projects/${project.json.id}/apps/oidc`, {
      name: 'pushing web',
      redirectUris: [CALLBACK],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
    const auth = { authorization: basic(app.json.clientId, app.json.clientSecret) };
    const pushed = await postForm(
      `${a}/oauth/v2/par`,
      { client_id: app.json.clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' },
      auth,
    );
    expect(pushed.status).toBe(201);
    const query = new URLSearchParams({ client_id: app.json.clientId, request_uri: pushed.json.request_uri as string });
    const balanced = { 'x-forwarded-for': '127.0.0.1' };
    const browser = new Browser({ url: b, config: { issuer } } as TestServer, balanced);
    const started = await browser.request(`${b}/oauth/v2/authorize?${query}`);
    expect(started.status).toBe(303);
    const resume = await browser.authorize(new URL(started.headers.get('location')!, b), 'admin', ADMIN_PASSWORD);
    const onA = new Browser({ url: a, config: { issuer } } as TestServer);
    for (const [name, value] of browser.cookies) onA.cookies.set(name, value);
    const callback = new URL((await onA.follow(resume.toString())).url);
    const tokens = await postForm(
      `${b}/oauth/v2/token`,
      { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: CALLBACK },
      auth,
    );
    expect(tokens.status).toBe(200);
    // consumed by the response A sent: B refuses it too
    const again = await fetch(`${b}/oauth/v2/authorize?${query}`, { redirect: 'manual', headers: balanced });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('invalid_request_uri');
  });

  it('a key rotated on the database is published by every instance without a restart', async () => {
    const kids = async (base: string) =>
      ((await (await fetch(`${base}/oauth/v2/keys`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = await kids(b);
    const { kid } = await rotateKeys(db, createSecretBox(TEST_MASTER_KEY), 3600);
    expect(before).not.toContain(kid);
    for (const base of [a, b])
      await until(async () => (await kids(base)).includes(kid), 10_000, `${base} publishes ${kid}`);
  });
});
