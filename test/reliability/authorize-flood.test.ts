// Pending authorization requests, which fill the database unless bounded: one address gets at most
// GATEHOUSE_AUTHORIZE_PER_IP authorization and logout requests a minute (429 + Retry-After beyond, so at most that many
// rows are stored), counted by the address Fastify resolves with its trusted proxies; an interaction nobody acts on is
// gone after GATEHOUSE_INTERACTION_TTL, while a user who acts keeps a working flow.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  ADMIN_PASSWORD,
  Browser,
  CALLBACK,
  createOidcApp,
  pkceAuthorization,
  userTokens,
  type TestApp,
} from '../helpers/oidc.ts';
import { textsFor } from '../../src/views/i18n.ts';
import { hashId } from '../../src/oidc/payloads.ts';

const ATTACKER = '127.9.0.1';
const LIMIT = 20;

/** A GET sent from a given local address (Linux routes all of 127/8 to lo), bounded in time. */
function getFrom(
  url: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter?: string; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, headers, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          retryAfter: res.headers['retry-after'],
          type: res.headers['content-type'],
          body,
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

async function authorizeUrl(server: TestServer, app: TestApp): Promise<string> {
  return String((await pkceAuthorization(server, app.clientId)).url);
}

/** Every row oidc-provider stores (interactions, sessions, ...). */
const storedRows = async (server: TestServer) =>
  Number((await server.db.query('SELECT count(*) AS n FROM oidc_payloads')).rows[0]!.n);

/** Sends `count` requests, `parallel` at a time; returns the statuses in order of sending. */
async function burst<R>(count: number, parallel: number, send: (i: number) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < count; i += parallel) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, (_, j) => send(i + j)))));
  }
  return results;
}

describe('authorization requests per client address', () => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        GATEHOUSE_AUTHORIZE_PER_IP: String(LIMIT),
        GATEHOUSE_RATE_LIMIT_EXEMPT: '',
        GATEHOUSE_TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    app = await createOidcApp(server, { authMethod: 'basic' });
  });
  afterAll(async () => server?.stop());

  it('a burst from one address gets 429 with Retry-After past the limit and stores at most the limit; others still sign in', async () => {
    const before = await storedRows(server);
    const url = await authorizeUrl(server, app);
    // X-Forwarded-For from an untrusted peer is ignored: spoofing a new address per request does not help
    const results = await burst(3 * LIMIT, 10, (i) => getFrom(url, ATTACKER, { 'x-forwarded-for': `198.51.100.${i}` }));
    expect(results.filter((r) => r.status === 303)).toHaveLength(LIMIT);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(2 * LIMIT);
    for (const r of limited) expect(Number(r.retryAfter)).toBeGreaterThan(0);
    for (const r of limited) expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
    // a browser is sent here: the answer is a page that says when to retry
    expect(limited[0]!.type).toMatch(/^text\/html/);
    expect(limited[0]!.body).toContain(textsFor('en').errorTooManyRequests!.split('{')[0]);
    expect((await storedRows(server)) - before).toBeLessThanOrEqual(LIMIT);
    // the legitimate user on another address signs in and gets tokens
    const tokens = await userTokens(server, app, 'openid');
    expect(tokens.id_token).toBeTruthy();
  });

  it('logout requests without a session count the same, and what they store is kept minutes, not a day', async () => {
    const before = await storedRows(server);
    const results = await burst(LIMIT + 10, 10, () => getFrom(`${server.url}/oidc/v1/end_session`, '127.9.0.2'));
    expect(results.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
    expect((await storedRows(server)) - before).toBeLessThanOrEqual(LIMIT);
    const { rows } = await server.db.query(
      `SELECT max(extract(epoch FROM expires_at - now())) AS left FROM oidc_payloads WHERE model = 'Session' AND ` +
        `payload->>'accountId' IS NULL`,
    );
    expect(Number(rows[0]!.left)).toBeGreaterThan(0);
    expect(Number(rows[0]!.left)).toBeLessThanOrEqual(server.config.ttl.interaction);
  });

  it('behind a trusted proxy, the forwarded client address is what counts', async () => {
    const url = await authorizeUrl(server, app);
    const viaProxy = (client: string) => getFrom(url, '127.0.0.1', { 'x-forwarded-for': client });
    const results = await burst(LIMIT + 5, 5, () => viaProxy('203.0.113.7'));
    expect(results.filter((r) => r.status === 303)).toHaveLength(LIMIT);
    expect(results.filter((r) => r.status === 429)).toHaveLength(5);
    expect((await viaProxy('203.0.113.8')).status).toBe(303);
  });
});

describe('pending interactions expire', () => {
  const TTL = 4;
  let server: TestServer;
  let app: TestApp;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const expired = textsFor('en').errorExpired!;
  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_INTERACTION_TTL: String(TTL) } });
    app = await createOidcApp(server, { authMethod: 'basic' });
  });
  afterAll(async () => server?.stop());

  async function start() {
    const browser = new Browser(server);
    const page = await browser.follow(await authorizeUrl(server, app));
    expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
    const csrf = /name="csrf" value="([^"]*)"/.exec(await page.response.text())![1]!;
    const post = (step: string, form: Record<string, string>) =>
      browser.follow(`${page.url}/${step}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: new URLSearchParams({ csrf, ...form }),
      });
    return { browser, loginUrl: page.url, uid: page.url.split('/').pop()!, post };
  }

  it('an interaction nobody acts on is stored for the TTL only, then refused with a clear page', async () => {
    const { browser, loginUrl, uid } = await start();
    const { rows } = await server.db.query(
      `SELECT extract(epoch FROM expires_at - now()) AS left FROM oidc_payloads WHERE model = 'Interaction' AND id ` +
        `= $1`,
      [hashId(uid)],
    );
    expect(Number(rows[0]!.left)).toBeLessThanOrEqual(TTL);
    await sleep(TTL * 1000 + 500);
    for (const url of [loginUrl, `${server.url}/oauth/v2/authorize/${uid}`]) {
      const res = await browser.request(url);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(expired.split('.')[0]);
    }
  });

  it('a user who acts keeps a working flow past the TTL counted from the start', async () => {
    const { post } = await start();
    await sleep(TTL * 1000 - 1500);
    expect((await post('login-name', { loginName: 'admin' })).response.status).toBe(200);
    await sleep(2500); // now past the start's TTL, within the TTL of the last form post
    const done = await post('password', { loginName: 'admin', password: ADMIN_PASSWORD });
    expect(done.url).toMatch(new RegExp(`^${CALLBACK}\\?code=`));
  });
});
