import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';
import { addMachineUser, addMachineUserKey } from '../../src/users/machine-service.ts';
import { CookieJar, formValue, type JarResponse } from '../helpers/cookie-jar.ts';
import { startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { basic, createOidcApp, pkceAuthorization, postForm } from '../helpers/oidc.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { jwtProfileToken, startServerWithAdminKey } from '../helpers/tokens.ts';
import { setUpOtherOrgApp, type OtherOrgApp } from '../helpers/other-org.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const SCOPE = `openid profile ${MANAGEMENT_API_SCOPE}`;

interface App {
  clientId: string;
  clientSecret?: string;
}
interface Start {
  url: string;
  verifier: string;
}

describe('consent for the management scope', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let other: OtherOrgApp;
  let firstParty: App;
  let redirectUri: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    callback = await startCallbackServer();
    redirectUri = `${callback.url}/cb`;
    other = await setUpOtherOrgApp(server, started.adminToken, redirectUri);
    firstParty = await createOidcApp(server, { devMode: true, redirectUris: [redirectUri] });
  });
  afterAll(async () => {
    await server?.stop();
    await callback?.close();
  });

  async function start(app: App, params: Record<string, string> = {}): Promise<Start> {
    const { url, verifier } = await pkceAuthorization(server, app.clientId, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      state: 'st',
      ...params,
    });
    return { url: String(url), verifier };
  }

  const post = (
    jar: CookieJar,
    url: string,
    form: Record<string, string>,
    headers: Record<string, string> = { origin: server.url, 'sec-fetch-site': 'same-origin' },
  ) => jar.fetch(url, { method: 'POST', headers: { ...FORM, ...headers }, body: new URLSearchParams(form).toString() });

  /** The URL the browser ends on at the app's callback (after following the server's redirects). */
  const landing = (page: JarResponse & { url: string }) => {
    expect(page.url.startsWith(redirectUri)).toBe(true);
    return new URL(page.url).searchParams;
  };

  /** Signs the admin (IAM_OWNER) in on this browser through a first-party app. */
  async function signIn(jar: CookieJar, loginName = 'admin', password = ADMIN_PASSWORD): Promise<void> {
    const page = await jar.follow((await start(firstParty, { scope: 'openid' })).url);
    expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
    const done = await post(jar, `${page.url}/password`, { csrf: formValue(page.body, 'csrf')!, loginName, password });
    expect(landing(await jar.follow(done.location!)).get('code')).toBeTruthy();
  }

  async function redeem(app: App, code: string, verifier: string) {
    const res = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(res.status).toBe(200);
    return res.json as { access_token: string; scope: string };
  }

  const consents = async () =>
    (await server.db.query('SELECT count(*)::int AS n FROM app_consents')).rows[0]!.n as number;

  it('prompt=none without the consent answers consent_required to the app, and no code', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const params = landing(await jar.follow((await start(other.app, { prompt: 'none' })).url));
    expect(params.get('error')).toBe('consent_required');
    expect(params.get('code')).toBeNull();
    expect(params.get('state')).toBe('st');
  });

  it('the consent page names the app, its organization and what it gets, in English and German, with the page protections', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const page = await jar.follow((await start(other.app)).url);
    expect(page.status).toBe(200);
    expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
    expect(page.body).toContain('<h1>Allow access?</h1>');
    expect(page.body).toContain(`<dd id="consent-app">${other.app.name}</dd>`);
    expect(page.body).toContain(`<dd id="consent-org">${other.orgName}</dd>`);
    expect(page.body).toContain('Manage Gatehouse with your permissions');
    expect(page.body).toContain(
      `${other.app.name} of the organization ${other.orgName} asks to manage Gatehouse with your permissions.`,
    );
    expect(page.body).toContain(`action="${new URL(page.url).pathname}/consent"`);
    expect(formValue(page.body, 'csrf')).toBeTruthy();
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.body).not.toMatch(/<script/);
    for (const [, url] of page.body.matchAll(/(?:src|href|action)="([^"]+)"/g)) expect(url!.startsWith('/')).toBe(true);
    // the only inputs are the hidden CSRF token and the two answers (buttons with their own text)
    expect([...page.body.matchAll(/<input [^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringContaining('type="hidden" name="csrf"'),
    ]);

    const german = await jar.follow((await start(other.app, { ui_locales: 'de' })).url);
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('<h1>Zugriff erlauben?</h1>');
    expect(german.body).toContain('Gatehouse mit Ihren Berechtigungen verwalten');
    expect(german.body).toContain(`${other.app.name} der Organisation ${other.orgName}`);
  });

  it('refuses a consent post without the CSRF token, from another origin, or without a decision; nothing is recorded', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const page = await jar.follow((await start(other.app)).url);
    const csrf = formValue(page.body, 'csrf')!;
    const action = `${page.url}/consent`;
    const before = await consents();
    expect((await post(jar, action, { decision: 'allow' })).status).toBe(403);
    expect((await post(jar, action, { csrf: 'x', decision: 'allow' })).status).toBe(403);
    expect(
      (
        await post(
          jar,
          action,
          { csrf, decision: 'allow' },
          { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        )
      ).status,
    ).toBe(403);
    for (const form of [{ csrf }, { csrf, decision: 'yes' }] as Array<Record<string, string>>) {
      const bad = await post(jar, action, form);
      expect(bad.status).toBe(400);
      expect(bad.body).toContain('the form field &quot;decision&quot; was missing or not understood');
    }
    // the login step's interaction cannot be answered as a consent
    const loginJar = new CookieJar();
    const login = await loginJar.follow((await start(other.app)).url);
    expect(login.body).toContain('id="loginName"');
    const wrongStep = await post(loginJar, `${login.url}/consent`, {
      csrf: formValue(login.body, 'csrf')!,
      decision: 'allow',
    });
    expect(wrongStep.status).toBe(400);
    expect(wrongStep.body).toContain('id="error-code">invalid_request<');
    expect(await consents()).toBe(before);
    // still no code for the app
    expect(landing(await jar.follow((await start(other.app, { prompt: 'none' })).url)).get('error')).toBe(
      'consent_required',
    );
  });

  it('Deny returns access_denied; Allow (303) gives the scope, asked once per user and app, also after the session ended', async () => {
    const app = await other.addApp();
    const jar = new CookieJar();
    await signIn(jar);
    const denied = await jar.follow((await start(app)).url);
    const deny = await post(jar, `${denied.url}/consent`, { csrf: formValue(denied.body, 'csrf')!, decision: 'deny' });
    expect(deny.status).toBe(303);
    const deniedAt = landing(await jar.follow(deny.location!));
    expect([deniedAt.get('error'), deniedAt.get('code')]).toEqual(['access_denied', null]);

    const flow = await start(app);
    const page = await jar.follow(flow.url);
    const allow = await post(jar, `${page.url}/consent`, { csrf: formValue(page.body, 'csrf')!, decision: 'allow' });
    expect(allow.status).toBe(303);
    const tokens = await redeem(app, landing(await jar.follow(allow.location!)).get('code')!, flow.verifier);
    expect(tokens.scope.split(' ')).toContain(MANAGEMENT_API_SCOPE);
    const { rows } = await server.db.query(
      `SELECT payload FROM events WHERE event_type = 'user.consent.granted' AND payload->>'clientId' = $1`,
      [app.clientId],
    );
    expect(rows).toEqual([
      { payload: expect.objectContaining({ scope: MANAGEMENT_API_SCOPE, appOrgId: other.orgId }) },
    ]);

    // asked once: prompt=none now passes
    const silent = await start(app, { prompt: 'none' });
    const silentTokens = await redeem(app, landing(await jar.follow(silent.url)).get('code')!, silent.verifier);
    expect(silentTokens.scope.split(' ')).toContain(MANAGEMENT_API_SCOPE);

    // the session ends; signed in again, the consent still holds
    const logout = await jar.fetch(`${server.url}/oidc/v1/end_session`);
    const ended = await post(jar, `${server.url}/oidc/v1/end_session/confirm`, {
      xsrf: formValue(logout.body, 'xsrf')!,
      logout: 'yes',
    });
    expect(ended.status).toBe(303);
    expect(landing(await jar.follow((await start(app, { prompt: 'none' })).url)).get('error')).toBe('login_required');
    await signIn(jar);
    expect(landing(await jar.follow((await start(app, { prompt: 'none' })).url)).get('code')).toBeTruthy();
    // but it is the admin's consent, not the owner's or anyone else's
    const owner = new CookieJar();
    await signIn(owner, other.owner.userName, other.owner.password);
    expect(landing(await owner.follow((await start(app, { prompt: 'none' })).url)).get('error')).toBe(
      'consent_required',
    );

    // a grant that holds the scope without a consent (given before this protection existed) loses it
    await server.db.query('DELETE FROM app_consents WHERE app_id = $1', [app.clientId.split('@')[0]]);
    expect(landing(await jar.follow((await start(app, { prompt: 'none' })).url)).get('error')).toBe('consent_required');
  });

  it.runIf(isPostgres)(
    'a consent given through one instance holds on another instance of the same database',
    async () => {
      const app = await other.addApp();
      const jar = new CookieJar();
      await signIn(jar);
      const page = await jar.follow((await start(app)).url);
      await post(jar, `${page.url}/consent`, { csrf: formValue(page.body, 'csrf')!, decision: 'allow' });
      const second = await startTestServer({
        database: server.database,
        env: { GATEHOUSE_ISSUER: server.config.issuer },
      });
      try {
        // the authorization request itself goes to the second instance (behind one issuer, as behind a balancer)
        const answer = await jar.fetch((await start(app, { prompt: 'none' })).url.replace(server.url, second.url));
        expect(answer.status).toBe(303);
        expect(new URL(answer.location!).searchParams.get('code')).toBeTruthy();
      } finally {
        await second.stop();
      }
    },
  );

  it('no page for apps of the first organization, for other scopes, and for machine users of another organization', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const first = await start(firstParty, { prompt: 'none' });
    const firstTokens = await redeem(firstParty, landing(await jar.follow(first.url)).get('code')!, first.verifier);
    expect(firstTokens.scope.split(' ')).toContain(MANAGEMENT_API_SCOPE);
    // prompt=consent is answered without a page when there is nothing to consent to
    expect(landing(await jar.follow((await start(firstParty, { prompt: 'consent' })).url)).get('code')).toBeTruthy();

    const plain = await start(other.app, { prompt: 'none', scope: 'openid profile' });
    expect(landing(await jar.follow(plain.url)).get('code')).toBeTruthy();

    const { userId } = await addMachineUser(
      server.db,
      { orgId: other.orgId, userName: `svc-b-${process.pid}`, name: 'B service' },
      'test',
    );
    const { keyFile } = await addMachineUserKey(server.db, { orgId: other.orgId, userId }, undefined, 'test');
    const token = await jwtProfileToken(server, keyFile);
    expect((await server.app.oidc.verifyAccessToken(token))!.scopes.has(MANAGEMENT_API_SCOPE)).toBe(true);
  });
});
