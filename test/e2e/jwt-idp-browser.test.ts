// Sign-in with a JWT IdP in Chromium: relying party (openid-client) -> Gatehouse -> a forwarding proxy that adds the
// JWT header -> Gatehouse -> relying party, with a real signing issuer serving its JWKS on loopback. Linked users, SSO
// afterwards, auto-registration, linking an existing account, key rotation, every failure (an error page or error
// redirect, never a 5xx), the login CSRF protection (an authRequestID from another browser is refused), and what the
// management operations change: only IdPs on the login policy are offered and accepted, a new keys endpoint and issuer
// apply at once, a removed IdP or link signs nobody in.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';
import { startJwtIssuer, type JwtIssuer } from '../helpers/jwt-issuer.ts';
import { startHeaderProxy, type HeaderProxy } from '../helpers/header-proxy.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { findLinkedUserId, linkIdentity, removeUserLink } from '../../src/idps/links.ts';
import { removeIdp, updateIdpJwtConfig } from '../../src/idps/lifecycle.ts';
import { addIdpToLoginPolicy, removeIdpFromLoginPolicy } from '../../src/idps/login-policy.ts';
import { setIdpState } from '../../src/idps/state.ts';
import { updateLoginPolicy } from '../../src/login-policy/service.ts';
import { DEFAULT_LOGIN_POLICY } from '../../src/login-policy/policy.ts';

const HEADER = 'x-auth-jwt';
const PASSWORD = 'Jwt-Idp-Password-1';

describe('sign-in with a JWT identity provider in a browser', () => {
  let server: LoginServer;
  let callback: CallbackServer;
  let issuer: JwtIssuer;
  let proxy: HeaderProxy;
  let rp: RelyingParty;
  let browser: Browser;
  let instanceId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, { GATEHOUSE_ALLOW_PRIVATE_FETCH: 'true' });
    issuer = await startJwtIssuer();
    proxy = await startHeaderProxy(server.url);
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
    browser = await launchBrowser();
    instanceId = (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await issuer?.close();
    await server?.stop();
    await callback?.close();
  });

  let idpCount = 0;
  /** An IdP, on the login policy unless `listed` is false. */
  async function addIdp(
    options: { autoRegister?: boolean; issuer?: string; keysEndpoint?: string; listed?: boolean } = {},
  ) {
    const { idpId } = await addJwtIdp(
      server.db,
      instanceId,
      {
        name: `Legacy ${++idpCount}`,
        stylingType: 'STYLING_TYPE_UNSPECIFIED',
        autoRegister: options.autoRegister ?? false,
        jwtEndpoint: `${proxy.url}/ui/login/login/jwt/authorize?tenant=legacy`,
        issuer: options.issuer ?? issuer.issuer,
        keysEndpoint: options.keysEndpoint ?? issuer.keysUrl,
        headerName: HEADER,
      },
      'test',
    );
    if (options.listed !== false) await addIdpToLoginPolicy(server.db, ref(idpId));
    return idpId;
  }

  const ref = (idpId: string) => ({ instanceId, idpId, editor: 'test' });

  async function linkedUser(userName: string, idpId: string, sub: string): Promise<string> {
    const userId = await server.addUser(userName, PASSWORD);
    const orgId = (await server.findUser(userName))!.org_id;
    await server.db.tx((tx) => linkIdentity(tx, userId, orgId, { idpId, externalUserId: sub, displayName: sub }));
    return userId;
  }

  const landed = (page: Page) => page.waitForURL((url) => url.toString().startsWith(callback.url), { timeout: 15_000 });

  async function authorize(page: Page, idpId?: string) {
    const start = await rp.start(idpId ? { scope: `openid profile urn:zitadel:iam:org:idp:id:${idpId}` } : {});
    await Promise.all([landed(page), page.goto(start.url.href)]);
    return start;
  }

  /** The authorization ends at the relying party with an OAuth error. */
  async function expectError(page: Page, idpId: string, error = 'access_denied') {
    await authorize(page, idpId);
    const params = new URL(page.url()).searchParams;
    expect(params.get('error')).toBe(error);
    expect(params.get('code')).toBeNull();
  }

  async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    return { context, page: await context.newPage() };
  }

  it('a linked user signs in through the proxy by scope, gets tokens for itself, and SSO follows', async () => {
    const idpId = await addIdp();
    const userId = await linkedUser('linda', idpId, 'ext-linda');
    proxy.setHeader(HEADER, `Bearer ${await issuer.sign({ sub: 'ext-linda' })}`);
    const { context, page } = await freshPage();
    const forwarded: string[] = [];
    page.on('request', (r) => r.url().startsWith(proxy.url) && forwarded.push(r.url()));
    const start = await authorize(page, idpId);
    // the IdP's own query is kept, ZITADEL's parameter names are added
    const atProxy = new URL(forwarded[0]!);
    expect(atProxy.pathname).toBe('/ui/login/login/jwt/authorize');
    expect(atProxy.searchParams.get('tenant')).toBe('legacy');
    expect(atProxy.searchParams.get('authRequestID')).toBeTruthy();
    expect(atProxy.searchParams.get('userAgentID')).toBeTruthy();
    const { claims } = await rp.finish(page.url(), start);
    expect(claims.sub).toBe(userId);
    // the ID token and the session say how the user signed in (amr, OIDC Core §2)
    expect(claims.amr).toEqual(['fed']);
    const sessions = await server.db.query<{ amr: unknown; loginTs: number }>(
      `SELECT payload->'amr' AS amr, (payload->>'loginTs')::int AS "loginTs" FROM oidc_payloads
        WHERE payload->>'accountId' = $1 AND payload ? 'loginTs'`,
      [userId],
    );
    expect(sessions.rows.map((r) => r.amr)).toEqual([['fed']]);
    expect(typeof sessions.rows[0]!.loginTs).toBe('number');
    // SSO: the next authorization needs neither the IdP nor a password
    proxy.setHeader(HEADER, undefined);
    const again = await authorize(page);
    const second = await rp.finish(page.url(), again);
    expect(second.claims.sub).toBe(userId);
    // auth_time is the IdP sign-in's, not the second authorization's
    const sso = await rp.start({ max_age: '3600' });
    await Promise.all([landed(page), page.goto(sso.url.href)]);
    const third = await rp.finish(page.url(), sso);
    expect(third.claims.sub).toBe(userId);
    expect(third.claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(third.claims.auth_time).toBe(sessions.rows[0]!.loginTs);
    // the token was never logged
    const token = await issuer.sign({ sub: 'ext-linda' });
    expect(server.logs.join('\n')).not.toContain(token.split('.')[2]);
    await context.close();
  });

  it('the login page offers "Continue with" each active IdP of the login policy; the button signs in', async () => {
    const unlisted = await addIdp({ listed: false });
    const idpId = await addIdp();
    const userId = await linkedUser('bruno', idpId, 'ext-bruno');
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-bruno' }));
    const { context, page } = await freshPage();
    const start = await rp.start();
    await page.goto(start.url.href);
    const button = page.locator(`#idp-${idpId}`);
    expect(await button.textContent()).toMatch(/Continue with Legacy/);
    // AddJWTIDP alone puts nothing on the page (as in ZITADEL): AddIDPToLoginPolicy does
    expect(await page.locator(`#idp-${unlisted}`).count()).toBe(0);
    await screenshot(page, 'jwt-idp-login-page');
    await Promise.all([landed(page), button.click()]);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe(userId);
    await context.close();
  });

  it('autoRegister creates a user from the claims, links it, and signs it in', async () => {
    const idpId = await addIdp({ autoRegister: true });
    proxy.setHeader(
      HEADER,
      await issuer.sign({
        sub: 'ext-newbie',
        preferred_username: 'newbie',
        email: 'newbie@legacy.example',
        email_verified: true,
        given_name: 'Nora',
        family_name: 'Newbie',
        locale: 'de',
      }),
    );
    const { context, page } = await freshPage();
    const start = await authorize(page, idpId);
    const { claims } = await rp.finish(page.url(), start);
    const user = (await server.findUser('newbie'))!;
    expect(claims.sub).toBe(user.id);
    expect(user.email).toBe('newbie@legacy.example');
    expect(user.email_verified).toBe(true);
    expect(user.first_name).toBe('Nora');
    expect(user.password_hash).toBeNull();
    expect(await findLinkedUserId(server.db, idpId, 'ext-newbie')).toBe(user.id);
    await context.close();
  });

  it('not linked, no autoRegister: a clear page, and signing in with an existing account links it', async () => {
    const idpId = await addIdp();
    const userId = await server.addUser('olga', PASSWORD);
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-olga' }));
    const { context, page } = await freshPage();
    const start = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
    await page.goto(start.url.href);
    expect(await page.locator('#message-title').textContent()).toBe('No account linked');
    await screenshot(page, 'jwt-idp-not-linked');
    await page.click('#message-link');
    await Promise.all([landed(page), signIn(page, 'olga', PASSWORD)]);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe(userId);
    expect(await findLinkedUserId(server.db, idpId, 'ext-olga')).toBe(userId);
    // from now on the IdP alone signs olga in
    const { context: other, page: next } = await freshPage();
    const direct = await authorize(next, idpId);
    expect((await rp.finish(next.url(), direct)).claims.sub).toBe(userId);
    await other.close();
    await context.close();
  });

  it('key rotation at the IdP works without a restart; a key the IdP never published fails', async () => {
    const idpId = await addIdp();
    const userId = await linkedUser('rita', idpId, 'ext-rita');
    const { context, page } = await freshPage();
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-rita' }));
    await context.clearCookies();
    const first = await authorize(page, idpId);
    expect((await rp.finish(page.url(), first)).claims.sub).toBe(userId);
    await issuer.rotate();
    await context.clearCookies();
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-rita' }));
    const second = await authorize(page, idpId);
    expect((await rp.finish(page.url(), second)).claims.sub).toBe(userId);
    // an unknown kid: one more fetch of the keys, then refused
    await context.clearCookies();
    const before = issuer.keyFetches();
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-rita' }, { key: 'unpublished' }));
    await expectError(page, idpId);
    expect(issuer.keyFetches()).toBe(before + 1);
    await context.close();
  });

  it('every failure ends as an OAuth error at the relying party or on an error page, never a 5xx', async () => {
    const idpId = await addIdp();
    await linkedUser('fred', idpId, 'ext-fred');
    const { context, page } = await freshPage();
    const statuses: number[] = [];
    page.on('response', (r) => statuses.push(r.status()));
    // no header
    proxy.setHeader(HEADER, undefined);
    await expectError(page, idpId);
    // a bad signature
    const good = await issuer.sign({ sub: 'ext-fred' });
    const [h, p, s] = good.split('.');
    proxy.setHeader(HEADER, `${h}.${p}.${s!.startsWith('A') ? 'B' : 'A'}${s!.slice(1)}`);
    await expectError(page, idpId);
    // expired
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-fred' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }));
    await expectError(page, idpId);
    // no sub
    proxy.setHeader(HEADER, await issuer.sign({}));
    await expectError(page, idpId);
    // the wrong issuer
    proxy.setHeader(HEADER, good);
    await expectError(page, await addIdp({ issuer: 'https://other-issuer.example' }));
    // the keys endpoint cannot be reached
    await expectError(page, await addIdp({ keysEndpoint: 'http://127.0.0.1:9/keys' }), 'temporarily_unavailable');
    // a deactivated user
    await server.db.query("UPDATE users SET state = 'inactive' WHERE user_name = 'fred'");
    await expectError(page, idpId);
    // a deactivated IdP: the flow does not start
    const inactive = await addIdp();
    await server.db.query("UPDATE idps SET state = 'inactive' WHERE id = $1", [inactive]);
    const start = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${inactive}` });
    const response = await page.goto(start.url.href);
    expect(response!.status()).toBe(400);
    expect(await page.locator('#error-message').textContent()).toMatch(/not available/);
    // a finished authRequestID, even with its binding cookie put back
    await server.db.query("UPDATE users SET state = 'active' WHERE user_name = 'fred'");
    proxy.hold(true);
    const done = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
    await page.goto(done.url.href);
    const atProxy = page.url();
    const binding = (await context.cookies()).filter((c) => c.name === 'gatehouse_jwt_idp');
    expect(binding).toHaveLength(1);
    proxy.hold(false);
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-fred' }));
    await Promise.all([landed(page), page.goto(atProxy)]);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    await context.addCookies(binding);
    const replay = await page.goto(atProxy);
    expect(replay!.status()).toBe(400);
    expect(await page.locator('#error-message').textContent()).toMatch(/expired or was already completed/);
    // an unknown authRequestID
    const bogus = await page.goto(`${proxy.url}/ui/login/login/jwt/authorize?authRequestID=bogus&userAgentID=x`);
    expect(bogus!.status()).toBe(403);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    const logs = server.logs.join('\n');
    expect(logs).toContain('jwt idp: sign-in refused');
    expect(logs).not.toContain(s!);
    await context.close();
  });

  it('login CSRF: an authRequestID started in another browser is refused, even with a valid token', async () => {
    const idpId = await addIdp();
    await linkedUser('victor', idpId, 'ext-victor');
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-victor' }));
    // the attacker starts an authorization and stops at the proxy, which would ask the attacker to sign in
    proxy.hold(true);
    const attacker = await freshPage();
    const attackStart = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
    await attacker.page.goto(attackStart.url.href);
    const attackUrl = attacker.page.url();
    expect(attackUrl.startsWith(proxy.url)).toBe(true);
    // the victim, signed in at the proxy, is made to open the attacker's URL while having a flow of its own
    const victim = await freshPage();
    await victim.page.goto((await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` })).url.href);
    proxy.hold(false);
    const response = await victim.page.goto(attackUrl);
    expect(response!.status()).toBe(403);
    expect(await victim.page.locator('#error-message').textContent()).toMatch(/not started in this browser/);
    // the attacker's interaction was not completed: resuming it still leads to the IdP, not to a code
    proxy.setHeader(HEADER, undefined);
    await Promise.all([landed(attacker.page), attacker.page.goto(attackUrl)]);
    expect(new URL(attacker.page.url()).searchParams.get('code')).toBeNull();
    await attacker.context.close();
    await victim.context.close();
  });

  it('an IdP off the login policy is neither offered nor reached by its scope; once added it is', async () => {
    const idpId = await addIdp();
    await linkedUser('paula', idpId, 'ext-paula');
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-paula' }));
    await removeIdpFromLoginPolicy(server.db, ref(idpId));
    const { context, page } = await freshPage();
    await page.goto((await rp.start()).url.href);
    expect(await page.locator('#loginName').count()).toBe(1);
    expect(await page.locator(`#idp-${idpId}`).count()).toBe(0);
    const start = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
    const response = await page.goto(start.url.href);
    expect(response!.status()).toBe(400);
    expect(await page.locator('#error-message').textContent()).toMatch(/not available/);
    // nor by the button's own URL
    const uid = new URL(page.url()).pathname.split('/')[3];
    expect((await page.goto(`${server.url}/ui/login/${uid}/idp/${idpId}`))!.status()).toBe(400);
    expect(await page.locator('#error-message').textContent()).toMatch(/not available/);
    await addIdpToLoginPolicy(server.db, ref(idpId));
    const again = await authorize(page, idpId);
    expect((await rp.finish(page.url(), again)).claims.sub).toBeTruthy();
    await context.close();
  });

  it('allowExternalIdp false (UpdateLoginPolicy): a listed IdP is neither offered nor reached by its scope', async () => {
    const idpId = await addIdp();
    const { context, page } = await freshPage();
    await updateLoginPolicy(server.db, instanceId, { ...DEFAULT_LOGIN_POLICY, allowExternalIdp: false }, 'test');
    try {
      await page.goto((await rp.start()).url.href);
      expect(await page.locator('#loginName').count()).toBe(1);
      expect(await page.locator(`#idp-${idpId}`).count()).toBe(0);
      const start = await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
      expect((await page.goto(start.url.href))!.status()).toBe(400);
    } finally {
      await updateLoginPolicy(server.db, instanceId, DEFAULT_LOGIN_POLICY, 'test');
    }
    await page.goto((await rp.start()).url.href);
    expect(await page.locator(`#idp-${idpId}`).count()).toBe(1);
    await context.close();
  });

  it('taken off the login policy or deactivated while the user is at the proxy: the sign-in does not finish', async () => {
    const changes = {
      'off the policy': (idpId: string) => removeIdpFromLoginPolicy(server.db, ref(idpId)),
      deactivated: (idpId: string) => setIdpState(server.db, instanceId, idpId, 'inactive', 'test'),
    };
    for (const [name, change] of Object.entries(changes)) {
      const idpId = await addIdp();
      await linkedUser(`quentin-${name.replace(/ /g, '-')}`, idpId, `ext-quentin-${name}`);
      proxy.setHeader(HEADER, await issuer.sign({ sub: `ext-quentin-${name}` }));
      proxy.hold(true);
      const { context, page } = await freshPage();
      await page.goto((await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` })).url.href);
      const atProxy = page.url();
      await change(idpId);
      proxy.hold(false);
      await Promise.all([landed(page), page.goto(atProxy)]);
      expect(new URL(page.url()).searchParams.get('error'), name).toBe('access_denied');
      await context.close();
    }
  });

  it('after UpdateIDPJWTConfig the next sign-in uses the new keys endpoint and issuer, never the old keys', async () => {
    const idpId = await addIdp();
    const userId = await linkedUser('ursula', idpId, 'ext-ursula');
    const { context, page } = await freshPage();
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-ursula' }));
    const first = await authorize(page, idpId);
    expect((await rp.finish(page.url(), first)).claims.sub).toBe(userId);
    const moved = await startJwtIssuer();
    try {
      await updateIdpJwtConfig(server.db, ref(idpId), {
        jwtEndpoint: `${proxy.url}/ui/login/login/jwt/authorize?tenant=moved`,
        issuer: moved.issuer,
        keysEndpoint: moved.keysUrl,
        headerName: HEADER,
      });
      // a token of the former issuer, whose keys this process has cached, is refused
      await context.clearCookies();
      const oldFetches = issuer.keyFetches();
      await expectError(page, idpId);
      expect(issuer.keyFetches()).toBe(oldFetches);
      // the new issuer's token passes, checked with keys fetched from the new endpoint
      await context.clearCookies();
      proxy.setHeader(HEADER, await moved.sign({ sub: 'ext-ursula' }));
      const forwarded: string[] = [];
      page.on('request', (r) => r.url().startsWith(proxy.url) && forwarded.push(r.url()));
      const second = await authorize(page, idpId);
      expect((await rp.finish(page.url(), second)).claims.sub).toBe(userId);
      expect(new URL(forwarded[0]!).searchParams.get('tenant')).toBe('moved');
      expect(moved.keyFetches()).toBe(1);
    } finally {
      await moved.close();
    }
    await context.close();
  });

  it('RemoveIDP: the button and the scope are gone, and so is the link', async () => {
    const idpId = await addIdp();
    await linkedUser('sven', idpId, 'ext-sven');
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-sven' }));
    const { context, page } = await freshPage();
    await page.goto((await rp.start()).url.href);
    expect(await page.locator(`#idp-${idpId}`).count()).toBe(1);
    await removeIdp(server.db, ref(idpId));
    await page.reload();
    expect(await page.locator('#loginName').count()).toBe(1);
    expect(await page.locator(`#idp-${idpId}`).count()).toBe(0);
    const response = await page.goto(
      (await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` })).url.href,
    );
    expect(response!.status()).toBe(400);
    expect(await findLinkedUserId(server.db, idpId, 'ext-sven')).toBeNull();
    await context.close();
  });

  it('RemoveHumanLinkedIDP: the identity no longer signs that user in', async () => {
    const idpId = await addIdp();
    const userId = await linkedUser('tara', idpId, 'ext-tara');
    proxy.setHeader(HEADER, await issuer.sign({ sub: 'ext-tara' }));
    const { context, page } = await freshPage();
    const first = await authorize(page, idpId);
    expect((await rp.finish(page.url(), first)).claims.sub).toBe(userId);
    const orgId = (await server.findUser('tara'))!.org_id;
    await removeUserLink(server.db, { orgId, userId, idpId, externalUserId: 'ext-tara' }, 'test');
    await context.clearCookies();
    await page.goto((await rp.start({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` })).url.href);
    expect(await page.locator('#message-title').textContent()).toBe('No account linked');
    await context.close();
  });
});
