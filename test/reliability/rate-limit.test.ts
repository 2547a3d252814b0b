// Abuse controls: per-IP and per-client limits with 429 and Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, createMachine, postForm } from '../helpers/oidc.ts';

describe('rate limits', () => {
  describe('per client IP', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ env: { GATEHOUSE_RATE_LIMIT_EXEMPT: '', GATEHOUSE_RATE_LIMIT_PER_IP: '5' } });
    });
    afterAll(async () => server?.stop());

    it('answers 429 with Retry-After once an address exceeds its budget on the credential endpoints only', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push(
          (
            await postForm(`${server.url}/oauth/v2/token`, {
              grant_type: 'client_credentials',
              client_id: 'x',
              client_secret: 'y',
            })
          ).status,
        );
      expect(statuses.slice(0, 5).every((s) => s === 401 || s === 400)).toBe(true);
      const limited = await postForm(`${server.url}/oauth/v2/introspect`, { token: 'x' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.json).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'too many requests; retry later',
      });
      // other endpoints are not limited
      expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    });
  });

  describe('per client', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({
        env: { GATEHOUSE_RATE_LIMIT_EXEMPT: '', GATEHOUSE_RATE_LIMIT_PER_CLIENT: '3' },
      });
    });
    afterAll(async () => server?.stop());

    it('limits a client after its successful requests, and requests naming it without its secret do not count', async () => {
      const a = await createMachine(server);
      const b = await createMachine(server);
      const token = (m: { userName: string }, secret: string) =>
        postForm(
          `${server.url}/oauth/v2/token`,
          { grant_type: 'client_credentials', scope: 'openid' },
          { authorization: basic(m.userName, secret) },
        );
      // someone without b's secret hammers b's client id: refused, and not counted against b
      for (let i = 0; i < 6; i++) expect((await token(b, 'wrong-secret')).status).toBe(401);
      for (let i = 0; i < 3; i++) expect((await token(a, a.clientSecret)).status).toBe(200);
      const limited = await token(a, a.clientSecret);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await token(b, b.clientSecret)).status).toBe(200);
    });
  });

  describe('exempt addresses', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({
        env: { GATEHOUSE_RATE_LIMIT_PER_IP: '2', GATEHOUSE_RATE_LIMIT_PER_CLIENT: '2' },
      });
    });
    afterAll(async () => server?.stop());

    it('are limited neither per IP nor per client', async () => {
      const machine = await createMachine(server);
      for (let i = 0; i < 6; i++) {
        const res = await postForm(
          `${server.url}/oauth/v2/token`,
          { grant_type: 'client_credentials', scope: 'openid' },
          { authorization: basic(machine.userName, machine.clientSecret) },
        );
        expect(res.status).toBe(200);
      }
    });
  });
});
