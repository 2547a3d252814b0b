// U+0000 in OIDC/OAuth parameters and in the login forms (PostgreSQL cannot store it): refused with a 4xx that names
// the parameter, before anything reaches the database; never a 500, never an error-level log line, nothing stored.
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  assertion,
  basic,
  Browser,
  CALLBACK,
  createMachine,
  createOidcApp,
  postForm,
  type OAuthJson,
  type TestApp,
} from '../helpers/oidc.ts';

const NUL = 'a\u0000b';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('NUL characters', () => {
  let server: TestServer;
  let app: TestApp;
  let machine: Awaited<ReturnType<typeof createMachine>>;
  let logsBefore = 0;

  beforeAll(async () => {
    server = await startTestServer();
    app = await createOidcApp(server, { authMethod: 'basic' });
    machine = await createMachine(server);
  });
  afterAll(async () => server?.stop());

  const errorLines = () =>
    server.logs.slice(logsBefore).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
  const interactions = async () =>
    Number((await server.db.query(`SELECT count(*) AS n FROM oidc_payloads WHERE model = 'Interaction'`)).rows[0]!.n);
  const authorizeUrl = async (over: Record<string, string>) => {
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    const params = {
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 's',
      nonce: 'n',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      ...over,
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url;
  };

  describe('GET /oauth/v2/authorize', () => {
    for (const param of [
      'client_id',
      'state',
      'nonce',
      'login_hint',
      'ui_locales',
      'acr_values',
      'redirect_uri',
      'scope',
    ]) {
      it(`${param}: a 400 page naming no stack, nothing stored`, async () => {
        logsBefore = server.logs.length;
        const before = await interactions();
        const res = await fetch(await authorizeUrl({ [param]: NUL }), { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        const html = await res.text();
        expect(html).toContain(param === 'client_id' ? 'invalid_client' : 'invalid_request');
        expect(await interactions()).toBe(before);
        expect(errorLines()).toEqual([]);
      });
    }
  });

  describe('token, revocation, introspection, end_session', () => {
    const cases: {
      name: string;
      send: () => Promise<{ status: number; json?: OAuthJson; text: string }>;
      error: string;
    }[] = [
      {
        name: 'token: client_id of client_credentials (client_secret_post)',
        error: 'invalid_client',
        send: () =>
          postForm(`${server.url}/oauth/v2/token`, {
            grant_type: 'client_credentials',
            client_id: NUL,
            client_secret: 'x',
            scope: 'openid',
          }),
      },
      {
        name: 'token: client_id of client_credentials (Basic)',
        error: 'invalid_client',
        send: () =>
          postForm(
            `${server.url}/oauth/v2/token`,
            { grant_type: 'client_credentials', scope: 'openid' },
            { authorization: basic(NUL, 'x') },
          ),
      },
      {
        name: 'token: client_id of authorization_code',
        error: 'invalid_client',
        send: () =>
          postForm(`${server.url}/oauth/v2/token`, {
            grant_type: 'authorization_code',
            client_id: NUL,
            code: 'c',
            redirect_uri: CALLBACK,
            code_verifier: 'v'.repeat(43),
          }),
      },
      {
        name: 'token: the iss of a JWT-profile assertion',
        error: 'invalid_client',
        send: async () =>
          postForm(`${server.url}/oauth/v2/token`, {
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            scope: 'openid',
            assertion: await assertion({ ...machine.keyFile, userId: NUL }, server.config.issuer),
          }),
      },
      {
        name: 'token: the code',
        error: 'invalid_request',
        send: () =>
          postForm(
            `${server.url}/oauth/v2/token`,
            { grant_type: 'authorization_code', code: NUL, redirect_uri: CALLBACK },
            { authorization: basic(app.clientId, app.clientSecret!) },
          ),
      },
      {
        name: 'revocation: client_id',
        error: 'invalid_client',
        send: () => postForm(`${server.url}/oauth/v2/revoke`, { token: 'x', client_id: NUL }),
      },
      {
        name: 'introspection: Basic client id',
        error: 'invalid_client',
        send: () => postForm(`${server.url}/oauth/v2/introspect`, { token: 'x' }, { authorization: basic(NUL, 'x') }),
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        logsBefore = server.logs.length;
        const res = await c.send();
        expect(res.status, res.text).toBe(c.error === 'invalid_client' ? 401 : 400);
        expect(res.json).toEqual({
          error: c.error,
          error_description: expect.stringMatching(/must not contain NUL characters$/),
        });
        expect(errorLines()).toEqual([]);
      });
    }

    it('end_session: client_id, by GET and by POST', async () => {
      logsBefore = server.logs.length;
      const get = await fetch(
        `${server.url}/oidc/v1/end_session?client_id=a%00b&post_logout_redirect_uri=${encodeURIComponent(CALLBACK)}`,
        { redirect: 'manual' },
      );
      expect(get.status).toBe(400);
      expect(await get.text()).toContain('invalid_client');
      const post = await fetch(`${server.url}/oidc/v1/end_session`, {
        method: 'POST',
        headers: FORM,
        body: 'client_id=a%00b',
        redirect: 'manual',
      });
      expect(post.status).toBe(400);
      expect(errorLines()).toEqual([]);
    });
  });

  describe('login and registration forms', () => {
    async function loginPage(extra: Record<string, string> = {}) {
      const browser = new Browser(server);
      const page = await browser.follow(String(await authorizeUrl(extra)));
      expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
      const csrf = /name="csrf" value="([^"]*)"/.exec(await page.response.text())![1]!;
      const post = (step: string, form: Record<string, string>) =>
        browser.request(`${page.url}/${step}`, {
          method: 'POST',
          headers: { ...FORM, origin: server.url },
          body: new URLSearchParams({ csrf, ...form }),
        });
      return { post };
    }

    for (const [step, form, field] of [
      ['login-name', { loginName: NUL }, 'loginName'],
      ['password', { loginName: NUL, password: 'Some-Password-1' }, 'loginName'],
      ['password', { loginName: 'admin', password: NUL }, 'password'],
      [
        'register',
        { firstName: NUL, lastName: 'L', email: 'nul@example.com', userName: 'nul-user', password: 'Some-Password-1' },
        'firstName',
      ],
      [
        'register',
        { firstName: 'F', lastName: 'L', email: 'nul@example.com', userName: NUL, password: 'Some-Password-1' },
        'userName',
      ],
    ] as const) {
      it(`${step}: ${field}`, async () => {
        const { post } = await loginPage(step === 'register' ? { prompt: 'create' } : {});
        logsBefore = server.logs.length;
        const res = await post(step, form);
        expect(res.status).toBe(400);
        const html = await res.text();
        expect(html).toContain(`“${field}”`);
        expect(html).toContain('invalid_request');
        expect(errorLines()).toEqual([]);
        expect(
          Number((await server.db.query(`SELECT count(*) AS n FROM users WHERE user_name = 'nul-user'`)).rows[0]!.n),
        ).toBe(0);
      });
    }
  });
});
