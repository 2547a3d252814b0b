import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

describe('health endpoints', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(['/healthz', '/debug/healthz', '/readyz', '/debug/ready'])(
    '%s answers 200 with a request id',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it('keeps a well-formed caller request id and replaces a malformed one', async () => {
    expect(
      (await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } })).headers.get('x-request-id'),
    ).toBe('abc-123');
    expect(
      (await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'a b<script>' } })).headers.get(
        'x-request-id',
      ),
    ).not.toContain('<');
  });

  it('never writes authorization headers or cookies to the log', async () => {
    await fetch(`${server.url}/healthz?x=1`, {
      headers: { authorization: 'Bearer super-secret-token', cookie: 'sid=secret-cookie' },
    });
    await fetch(`${server.url}/nope`, { headers: { authorization: 'Bearer super-secret-token' } });
    const logs = server.logs.join('');
    expect(logs).toContain('/nope');
    expect(logs).not.toContain('super-secret-token');
    expect(logs).not.toContain('secret-cookie');
  });
});

describe('readiness follows the database', () => {
  it.runIf(isPostgres)('/readyz turns 503 when PostgreSQL goes away and 200 when it is back', async () => {
    const database: TestDatabase = await createTestDatabase();
    const target = new URL(database.env.DATABASE_URL!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(target);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const server = await startTestServer({
      database: { ...database, env: { DATABASE_URL: viaProxy.toString() } },
      env: { DATABASE_CONNECT_TIMEOUT_MS: '1000' },
    });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      proxy.cut();
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ status: 'unavailable' });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200); // alive, only not ready
      proxy.restore();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.close();
      await proxy.close();
      await database.drop();
    }
  });

  it('/readyz turns 503 when the database is closed', async () => {
    const server = await startTestServer();
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      await server.db.close();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    } finally {
      await server.app.close();
      await server.database.drop();
    }
  });
});
