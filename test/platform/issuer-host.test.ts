// Pages opened under another name of the server (http://127.0.0.1:PORT while the issuer is http://localhost:PORT) are
// sent to the same path on the issuer's origin, so their cookies land on the issuer's host (platform/issuer-host.ts);
// the target never comes from Host, and the OIDC endpoints and the health probes answer under any name.
import { request as httpRequest } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectPagesToIssuer } from '../../src/platform/issuer-host.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

describe('pages under another host than the issuer', () => {
  let server: TestServer;
  let port: number;
  let issuer: string;
  beforeAll(async () => {
    server = await startTestServer({ issuerHost: 'localhost' });
    port = Number(new URL(server.url).port);
    issuer = server.config.issuer;
  });
  afterAll(async () => server?.stop());

  /** A request to the listening socket (127.0.0.1) with the Host header a browser at `host` sends. */
  const send = (
    path: string,
    options: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: options.method ?? 'GET',
          headers: { host: options.host ?? `127.0.0.1:${port}`, ...options.headers },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += String(chunk)));
          res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });

  it('sends a page request to the same path and query on the issuer', async () => {
    expect(issuer).toBe(`http://localhost:${port}`);
    expect(await send('/ui/console?tab=apps')).toMatchObject({
      status: 302,
      location: `${issuer}/ui/console?tab=apps`,
    });
    expect(await send('/ui/login/login?authRequest=x', { method: 'HEAD' })).toMatchObject({
      status: 302,
      location: `${issuer}/ui/login/login?authRequest=x`,
    });
  });

  it('builds the target from the configured issuer, never from the Host header', async () => {
    const answer = await send('/ui/console', { host: 'evil.example.com' });
    expect(answer).toMatchObject({ status: 302, location: `${issuer}/ui/console` });
  });

  it("leaves pages at the issuer's host, form posts and requests relayed by a proxy to their handlers", async () => {
    const own = `${issuer}/ui/console`;
    for (const answer of [
      await send('/ui/console', { host: `localhost:${port}` }),
      await send('/ui/console', { host: `LOCALHOST:${port}` }),
      await send('/ui/console', { headers: { 'x-forwarded-for': '192.0.2.1' } }),
      await send('/ui/login/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'loginName=admin',
      }),
    ]) {
      expect(answer.location).not.toBe(own);
      expect(answer.location ?? '').not.toMatch(/^http:\/\/localhost:\d+\/ui\/login\/login$/);
    }
  });

  it('never redirects the OIDC endpoints or the health probes, which clients call by any name', async () => {
    const token = await send('/oauth/v2/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    expect(token.status).toBe(401);
    expect(JSON.parse(token.body)).toMatchObject({ error: 'invalid_client' });
    expect((await send('/readyz')).status).toBe(200);
    expect((await send('/healthz')).status).toBe(200);
    const discovery = await send('/.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(JSON.parse(discovery.body)).toMatchObject({ issuer });
  });
});

describe('the redirect behind a proxy that terminates TLS', () => {
  const app = async (tls: boolean) => {
    const fastify = Fastify();
    redirectPagesToIssuer(fastify, { issuer: 'https://id.example.com', tls, under: '/ui' });
    fastify.get('/ui/*', async () => 'page');
    fastify.get('/uix', async () => 'not a page');
    return fastify;
  };

  it('is off when the listener speaks plain HTTP under an https issuer: its Host is the proxy upstream name', async () => {
    const fastify = await app(false);
    const res = await fastify.inject({ url: '/ui/console', headers: { host: 'gatehouse:8080' } });
    expect(res.statusCode).toBe(200);
  });

  it('is on when the listener speaks TLS itself; only paths under the prefix', async () => {
    const fastify = await app(true);
    const page = await fastify.inject({ url: '/ui/console', headers: { host: '192.0.2.7:8443' } });
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('https://id.example.com/ui/console');
    expect((await fastify.inject({ url: '/uix', headers: { host: '192.0.2.7:8443' } })).statusCode).toBe(200);
    const issuerHost = await fastify.inject({ url: '/ui/console', headers: { host: 'id.example.com:443' } });
    expect(issuerHost.statusCode).toBe(200);
  });
});
