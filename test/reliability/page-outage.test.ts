// The pages during a database outage (the server's failure, not the client's): the login pages (and the account
// and console pages, which share their error handler) answer 503 with Retry-After and an error page in the page's
// language, as the OAuth endpoints and the API do, not 500. PostgreSQL only: the embedded database runs in the process,
// with no connection to take away (the classification itself is tested on both in test/platform/error-class.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { CookieJar, formValue } from '../helpers/cookie-jar.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';
import en from '../../views/locales/en.json' with { type: 'json' };
import de from '../../views/locales/de.json' with { type: 'json' };

describe.runIf(isPostgres)('login pages during a PostgreSQL outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let callback: CallbackServer;
  let server: LoginServer;
  let rp: RelyingParty;

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.env.DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(target);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    callback = await startCallbackServer();
    server = await startLoginServer(
      callback.url,
      { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '2000' },
      undefined,
      { ...database, env: { DATABASE_URL: viaProxy.toString() } },
    );
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.stop();
    await callback?.close();
    await proxy?.close();
    await database?.drop();
  });

  /** A sign-in begun while the database is there, in `language`: its page URL, cookies and CSRF token. */
  async function begin(language: string) {
    const jar = new CookieJar();
    const headers = { 'accept-language': language };
    const page = await jar.follow((await rp.start()).url, { headers });
    expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
    const csrf = formValue(page.body, 'csrf')!;
    const postLoginName = () =>
      jar.fetch(`${page.url}/login-name`, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          origin: server.url,
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ csrf, loginName: 'admin' }).toString(),
      });
    return { jar, url: page.url, headers, postLoginName };
  }

  it('answers a page 503 with Retry-After and an error page in its language, never 500, and serves it again after', async () => {
    const flows = { en: await begin('en'), de: await begin('de') };
    const logged = server.logs.length;
    proxy.cut();
    try {
      for (const [language, texts] of [
        ['en', en],
        ['de', de],
      ] as const) {
        const flow = flows[language];
        for (const answer of [await flow.postLoginName(), await flow.jar.fetch(flow.url, { headers: flow.headers })]) {
          expect(answer.status).toBe(503);
          expect(answer.headers.get('retry-after')).toBe('5');
          expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
          expect(answer.headers.get('content-language')).toBe(language);
          expect(answer.body).toContain(texts.errorUnavailable);
          expect(answer.body).toContain('temporarily_unavailable');
        }
      }
    } finally {
      proxy.restore();
    }
    const lines = server.logs.slice(logged).map((l) => JSON.parse(l) as { msg: string });
    expect(lines.some((l) => l.msg === 'database unavailable')).toBe(true);
    expect(lines.some((l) => l.msg === 'page failed')).toBe(false);
    // the same sign-in goes on once the database is back
    const again = await flows.en.postLoginName();
    expect(again.status).toBe(200);
    expect(again.body).toContain('name="password"');
  }, 60_000);
});
