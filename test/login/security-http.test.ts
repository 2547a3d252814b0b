// HTTP-level checks of the login pages' protections (SECURITY.md "Login pages and sessions"), against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, formValue, type JarResponse } from '../helpers/cookie-jar.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function expectSecurityHeaders(response: JarResponse): void {
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  // no third-party resources: every src/href is same-origin
  for (const [, url] of response.body.matchAll(/(?:src|href)="([^"]+)"/g))
    expect(url!.startsWith('/') || url!.startsWith('#')).toBe(true);
}

interface Flow {
  jar: CookieJar;
  page: JarResponse & { url: string };
  base: string;
  csrf: string;
}

describe('login pages over HTTP', () => {
  let callback: CallbackServer;
  let server: LoginServer;
  let rp: RelyingParty;

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, {
      GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '3',
      GATEHOUSE_LOCKOUT_SECONDS: '2',
      GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '1000',
    });
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
  });
  afterAll(async () => {
    await server?.stop();
    await callback?.close();
  });

  async function begin(params: Record<string, string> = {}, jar = new CookieJar()): Promise<Flow> {
    const page = await jar.follow((await rp.start(params)).url);
    expect(page.url).toMatch(/\/ui\/login\/[^/]+$/);
    return { jar, page, base: page.url, csrf: formValue(page.body, 'csrf')! };
  }

  const post = (
    flow: Flow,
    step: string,
    form: Record<string, string>,
    headers: Record<string, string> = { origin: server.url, 'sec-fetch-site': 'same-origin' },
  ) =>
    flow.jar.fetch(`${flow.base}/${step}`, {
      method: 'POST',
      headers: { ...FORM, ...headers },
      body: new URLSearchParams(form).toString(),
    });

  it('sends the security headers on every HTML page, and serves its own stylesheet', async () => {
    const flow = await begin();
    expectSecurityHeaders(flow.page);
    expect(flow.page.headers.get('content-language')).toBe('en');
    expectSecurityHeaders(await post(flow, 'login-name', { csrf: flow.csrf, loginName: 'admin' }));
    expectSecurityHeaders(await post(flow, 'password', { csrf: flow.csrf, loginName: 'admin', password: 'wrong' }));
    expectSecurityHeaders(await post(flow, 'password', { loginName: 'admin', password: 'wrong' }));
    expectSecurityHeaders(await flow.jar.fetch(`${flow.base}/register`));
    const bad = new URL((await rp.start()).url);
    bad.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const error = await new CookieJar().fetch(bad);
    expect(error.status).toBe(400);
    expectSecurityHeaders(error);
    const css = await fetch(`${server.url}/ui/static/style.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${server.url}/ui/static/..%2Fpassword.html`)).status).toBe(404);
  });

  it('chooses the language from ui_locales, then Accept-Language; discovery lists the languages', async () => {
    const discovery = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as {
      ui_locales_supported: string[];
    };
    expect(discovery.ui_locales_supported).toEqual(['en', 'de']);
    const byHeader = await new CookieJar().follow((await rp.start()).url, {
      headers: { 'accept-language': 'de-CH, en;q=0.5' },
    });
    expect(byHeader.headers.get('content-language')).toBe('de');
    expect(byHeader.body).toContain('<html lang="de">');
    const byParam = await new CookieJar().follow((await rp.start({ ui_locales: 'fr en' })).url, {
      headers: { 'accept-language': 'de' },
    });
    expect(byParam.headers.get('content-language')).toBe('en');
    expect(byParam.body).toContain('<h1>Sign in</h1>');
  });

  it('refuses form posts without the interaction CSRF token or from another origin (403, nothing done)', async () => {
    const flow = await begin();
    const other = await begin();
    const good = { csrf: flow.csrf, loginName: 'admin', password: server.adminPassword };
    const refused = [
      await post(flow, 'password', { loginName: 'admin', password: server.adminPassword }),
      await post(flow, 'password', { ...good, csrf: other.csrf }),
      await post(flow, 'password', { ...good, csrf: `${flow.csrf}x` }),
      await post(flow, 'password', good, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      await post(flow, 'password', good, { origin: 'https://evil.example' }),
      await post(flow, 'password', good, { 'sec-fetch-site': 'same-site' }),
      await post(flow, 'password', good, { origin: 'null' }),
      await post(flow, 'login-name', { loginName: 'admin' }),
      await post(flow, 'register', {
        firstName: 'a',
        lastName: 'b',
        email: 'x@example.com',
        userName: 'csrf-victim',
        password: 'long enough pw',
      }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(403);
      expect(response.body).toContain('id="error-code">csrf_check_failed<');
      expectSecurityHeaders(response);
    }
    expect(await server.findUser('csrf-victim')).toBeUndefined();
    // Chromium's same-origin post under no-referrer: Origin null plus Sec-Fetch-Site same-origin is accepted
    const ok = await post(flow, 'password', good, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(303);
  });

  it('answers a successful credential POST with 303 and sets the account cookie HttpOnly, SameSite=Lax', async () => {
    const flow = await begin();
    const done = await post(flow, 'password', { csrf: flow.csrf, loginName: 'admin', password: server.adminPassword });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/\/oauth\/v2\/authorize\//);
    const accounts = done.setCookies.find((c) => c.startsWith('gatehouse_accounts='))!;
    expect(accounts).toMatch(/; HttpOnly/);
    expect(accounts).toMatch(/; SameSite=Lax/);
    expect(accounts).toMatch(/; Path=\/(;|$)/);
    expect(accounts).not.toContain(server.adminId); // encrypted, not readable by the browser
    const landed = await flow.jar.follow(done.location!);
    expect(landed.url.startsWith(`${callback.url}/cb?code=`)).toBe(true);
    const session = landed.setCookies.find((c) => c.startsWith('_gh_session='))!;
    expect(session).toMatch(/; httponly/i);
    expect(session).toMatch(/; samesite=lax/i);

    // the provider's own HTML (here a form_post response) carries the same headers; its inline script is
    // admitted by hash only
    const formPost = await flow.jar.follow((await rp.start({ response_mode: 'form_post' })).url);
    expect(formPost.status).toBe(200);
    expect(formPost.body).toContain(`action="${callback.url}/cb"`);
    expectSecurityHeaders(formPost);
    expect(formPost.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[^']+'/);
  });

  it('gives unknown users and wrong passwords the same status, message and similar timing', async () => {
    const attempt = async (loginName: string) => {
      const flow = await begin();
      const started = performance.now();
      const response = await post(flow, 'password', { csrf: flow.csrf, loginName, password: 'definitely wrong' });
      return {
        response,
        ms: performance.now() - started,
        body: response.body
          .replaceAll(loginName, 'NAME')
          .replace(/value="[^"]*"/g, '')
          .replace(/\/ui\/login\/[^/"]+/g, '/ui/login/UID'),
      };
    };
    const known = [];
    const unknown = [];
    for (let i = 0; i < 10; i++) {
      const user = await server.addUser(`t-known-${i}`, 'the right password');
      expect(user).toBeTruthy();
      known.push(await attempt(`t-known-${i}`));
      unknown.push(await attempt(`t-ghost-${i}`));
    }
    for (const a of [...known, ...unknown]) expect(a.response.status).toBe(401);
    expect(unknown[0]!.body).toBe(known[0]!.body);
    expect(known[0]!.body).toContain('The login name or password is incorrect.');
    // Both pay one argon2id verification (m=19 MiB, t=2): without the decoy an unknown name would answer in a
    // fraction of that time.
    // The fastest of ten each: a busy machine only ever adds time, so minima compare the work itself.
    const fastest = (xs: { ms: number }[]) => Math.min(...xs.map((x) => x.ms));
    expect(fastest(unknown)).toBeGreaterThan(fastest(known) / 2);
    expect(fastest(known)).toBeGreaterThan(fastest(unknown) / 2);
    // passwords are never logged
    expect(server.logs.join('\n')).not.toContain('definitely wrong');
    expect(server.logs.join('\n')).not.toContain(server.adminPassword);
  });

  it('locks an account after repeated failures with 429 and Retry-After, for unknown names too, and unlocks after the time', async () => {
    await server.addUser('locky', 'locky password 1');
    for (const name of ['locky', 'ghost-user']) {
      const flow = await begin();
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await post(flow, 'password', { csrf: flow.csrf, loginName: name, password: 'wrong password' })).status,
        );
      expect(statuses).toEqual([401, 401, 429]);
      const locked = await post(flow, 'password', { csrf: flow.csrf, loginName: name, password: 'locky password 1' });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(2);
      expect(locked.body).toContain('Too many failed attempts.');
    }
    await new Promise((r) => setTimeout(r, 2100));
    const flow = await begin();
    expect(
      (await post(flow, 'password', { csrf: flow.csrf, loginName: 'locky', password: 'locky password 1' })).status,
    ).toBe(303);
  });

  it('applies the password policy at registration, with errors tied to the fields and nothing written', async () => {
    const flow = await begin({ prompt: 'create' });
    expect(flow.page.body).toContain('id="firstName"');
    const base = {
      csrf: flow.csrf,
      firstName: 'Reg',
      lastName: 'Ister',
      email: 'reg@example.com',
      userName: 'reg-user',
    };
    const short = await post(flow, 'register', { ...base, password: '1234567' });
    expect(short.status).toBe(400);
    expect(short.body).toMatch(/id="password"[^>]*aria-invalid="true"/);
    expect(short.body).toContain('id="password-error" role="alert">Use at least 8 characters.');
    expect(short.body).not.toContain('1234567');
    const email = await post(flow, 'register', { ...base, email: 'nope', password: '12345678' });
    expect(email.body).toContain('id="email-error" role="alert">Enter a valid e-mail address.');
    expect(await server.findUser('reg-user')).toBeUndefined();
    const taken = await post(flow, 'register', { ...base, userName: 'ADMIN', password: '12345678' });
    expect(taken.status).toBe(409);
    expect(taken.body).toContain('id="userName-error" role="alert">This user name is already taken.');
    const done = await post(flow, 'register', { ...base, password: '12345678' });
    expect(done.status).toBe(303);
    expect((await server.findUser('reg-user'))?.display_name).toBe('Reg Ister');
  });

  it("choosing the session's account skips the password, unless prompt=login or max_age demand a fresh login", async () => {
    const flow = await begin();
    const signedIn = await post(flow, 'password', {
      csrf: flow.csrf,
      loginName: 'admin',
      password: server.adminPassword,
    });
    expect(signedIn.status).toBe(303);
    await flow.jar.follow(signedIn.location!);
    for (const [params, skips] of [
      [{ prompt: 'select_account' }, true],
      [{ prompt: 'select_account login' }, false],
      [{ prompt: 'select_account', max_age: '0' }, false],
    ] as const) {
      const chooser = await begin(params, flow.jar);
      expect(chooser.page.body).toContain(`value="${server.adminId}" class="account" autofocus`);
      const chosen = await post(chooser, 'select', { csrf: chooser.csrf, accountId: server.adminId });
      if (skips) {
        expect(chosen.status).toBe(303);
        expect((await flow.jar.follow(chosen.location!)).url.startsWith(`${callback.url}/cb?code=`)).toBe(true);
      } else {
        expect(chosen.status).toBe(200);
        expect(chosen.body).toContain('id="password"');
      }
    }
  });

  it('the logout confirmation is refused from another origin (403, still signed in), and works from our own page', async () => {
    const flow = await begin();
    const signedIn = await post(flow, 'password', {
      csrf: flow.csrf,
      loginName: 'admin',
      password: server.adminPassword,
    });
    await flow.jar.follow(signedIn.location!);
    const logout = await flow.jar.fetch(`${server.url}/oidc/v1/end_session`);
    expectSecurityHeaders(logout);
    expect(logout.headers.get('content-language')).toBe('en');
    const xsrf = formValue(logout.body, 'xsrf')!;
    const confirm = (headers: Record<string, string>) =>
      flow.jar.fetch(`${server.url}/oidc/v1/end_session/confirm`, {
        method: 'POST',
        headers: { ...FORM, ...headers },
        body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
      });
    const refused = await confirm({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(refused.status).toBe(403);
    expectSecurityHeaders(refused);
    const silent = await flow.jar.follow((await rp.start({ prompt: 'none' })).url);
    expect(new URL(silent.url).searchParams.get('code')).toBeTruthy();
    const done = await confirm({ origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect(done.status).toBe(303);
    const after = await flow.jar.follow((await rp.start({ prompt: 'none' })).url);
    expect(new URL(after.url).searchParams.get('error')).toBe('login_required');
  });

  it('a browser with several accounts chooses on a plain request; prompt=none and login_hint still pass silently', async () => {
    const jar = new CookieJar();
    await server.addUser('second', 'second password 1');
    for (const [loginName, password] of [
      ['second', 'second password 1'],
      ['admin', server.adminPassword],
    ]) {
      const flow = await begin({ prompt: 'login' }, jar);
      const done = await post(flow, 'password', { csrf: flow.csrf, loginName: loginName!, password: password! });
      expect(done.status).toBe(303);
      await jar.follow(done.location!);
    }
    const plain = await jar.follow((await rp.start()).url);
    expect(plain.body).toContain('<h1>Choose an account</h1>');
    expect(plain.body.match(/class="account"/g)).toHaveLength(2);
    for (const params of [{ prompt: 'none' }, { login_hint: 'admin' }] as Array<Record<string, string>>) {
      const silent = await jar.follow((await rp.start(params)).url);
      expect(new URL(silent.url).searchParams.get('code')).toBeTruthy();
    }
  });

  it("does not sign in an account chosen from outside this browser's list", async () => {
    const flow = await begin({ prompt: 'select_account' });
    const response = await post(flow, 'select', { csrf: flow.csrf, accountId: server.adminId });
    expect(response.status).toBe(200);
    expect(response.body).toContain('id="loginName"');
  });

  it('renders readable errors instead of 500s: no interaction cookie, wrong body type, oversized body', async () => {
    const flow = await begin();
    const stranger = await new CookieJar().fetch(flow.base);
    expect(stranger.status).toBe(400);
    expect(stranger.body).toContain('This sign-in attempt has expired');
    expectSecurityHeaders(stranger);
    const text = await flow.jar.fetch(`${flow.base}/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml', origin: server.url },
      body: '<password/>',
    });
    expect(text.status).toBe(415);
    expectSecurityHeaders(text);
    const huge = await post(flow, 'password', { csrf: flow.csrf, loginName: 'admin', password: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.body).not.toMatch(/at \w+ \(|node_modules/);
  });
});

describe('lockout per client address', () => {
  let callback: CallbackServer;
  let server: LoginServer;
  let rp: RelyingParty;
  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, {
      GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '100',
      GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: '3',
      GATEHOUSE_LOCKOUT_SECONDS: '60',
    });
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
  });
  afterAll(async () => {
    await server?.stop();
    await callback?.close();
  });

  it('locks the address after failures across different names, even for a right password', async () => {
    const jar = new CookieJar();
    const page = await jar.follow((await rp.start()).url);
    const csrf = formValue(page.body, 'csrf')!;
    const attempt = (loginName: string, password: string) =>
      jar.fetch(`${page.url}/password`, {
        method: 'POST',
        headers: { ...FORM, origin: server.url },
        body: new URLSearchParams({ csrf, loginName, password }).toString(),
      });
    const statuses = [];
    for (const name of ['spray-a', 'spray-b', 'spray-c']) statuses.push((await attempt(name, 'guess')).status);
    expect(statuses).toEqual([401, 401, 429]);
    const locked = await attempt('admin', server.adminPassword);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(50);
  });
});
