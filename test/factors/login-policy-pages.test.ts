// The login pages honour the login policy. allowRegister off hides the link and refuses the form (also for
// prompt=create); allowExternalIdp off hides the IdP buttons and refuses their route and the idp scope;
// allowUsernamePassword off hides the login-name form and refuses a posted password like a wrong one.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callRest, okJson } from '../helpers/management.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import type { TestServer } from '../helpers/server.ts';
import { addUser, PASSWORD, relyingParty, setLoginPolicy, SignIn } from './helpers.ts';

describe('the login pages under the login policy', () => {
  let server: TestServer;
  let admin: string;
  let idpId: string;
  let rp: Awaited<ReturnType<typeof relyingParty>>;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    admin = started.adminToken;
    rp = await relyingParty(server);
    idpId = okJson<{ idpId: string }>(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'AddJWTIDP',
          rest: ['POST', '/admin/v1/idps/jwt'],
          body: {
            name: 'Corporate',
            jwtEndpoint: 'https://idp.example.com/jwt',
            issuer: 'https://idp.example.com',
            keysEndpoint: 'https://idp.example.com/keys',
            headerName: 'x-auth-token',
          },
        },
        { token: admin },
      ),
    ).idpId;
    okJson(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'AddIDPToLoginPolicy',
          rest: ['POST', '/admin/v1/policies/login/idps'],
          body: { idpId },
        },
        { token: admin },
      ),
    );
  });
  afterAll(async () => server?.stop());
  afterEach(async () => {
    await setLoginPolicy(server, admin, {});
  });

  const loginPage = async (params: Record<string, string> = {}) =>
    new SignIn(server).start((await rp.start(params)).url);

  it('allowRegister off: no link to the form, and the form and prompt=create are refused, each answered once', async () => {
    expect((await loginPage()).page).toContain('id="register-link"');
    const logged = server.logs.length;
    await setLoginPolicy(server, admin, { allowRegister: false });
    const page = await loginPage();
    expect(page.page).not.toContain('id="register-link"');
    const form = await page.browser.request(`${page.loginUrl}/register`);
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('Registration is not available.');
    const created = await loginPage({ prompt: 'create' });
    expect(created.page).toContain('Registration is not available.');
    expect(created.page).not.toContain('name="userName"');
    await created.post('register', {
      firstName: 'No',
      lastName: 'Body',
      email: 'nobody@example.com',
      userName: 'nobody-registered',
      password: 'correct horse battery',
    });
    expect(created.status).toBe(403);
    const { rowCount } = await server.db.query("SELECT 1 FROM users WHERE user_name = 'nobody-registered'");
    expect(rowCount).toBe(0);
    expect(server.logs.slice(logged).join('')).not.toContain('Reply was already sent');
  });

  it('allowExternalIdp off: no IdP buttons, and neither their route nor the idp scope leads to the IdP', async () => {
    const allowed = await loginPage();
    expect(allowed.page).toContain(`id="idp-${idpId}"`);
    const go = await allowed.browser.request(`${allowed.loginUrl}/idp/${idpId}`);
    expect(go.status).toBe(303);
    expect(go.headers.get('location')).toMatch(/^https:\/\/idp\.example\.com\/jwt/);
    await setLoginPolicy(server, admin, { allowExternalIdp: false });
    const page = await loginPage();
    expect(page.page).not.toContain(`id="idp-${idpId}"`);
    const refused = await page.browser.request(`${page.loginUrl}/idp/${idpId}`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('This identity provider is not available for sign-in.');
    const scoped = await loginPage({ scope: `openid urn:zitadel:iam:org:idp:id:${idpId}` });
    expect(scoped.page).toContain('This identity provider is not available for sign-in.');
  });

  it('allowUsernamePassword off: no login-name form, and the right password is answered like a wrong one', async () => {
    const userName = await addUser(server, 'no-password');
    // a sign-in begun while passwords were allowed (its page has the form and the CSRF token)
    const begun = await loginPage();
    await setLoginPolicy(server, admin, { allowUsernamePassword: false });
    expect((await loginPage()).page).not.toContain('name="loginName"');
    const page = await begun.post('password', { loginName: userName, password: PASSWORD });
    expect(page.status).toBe(401);
    expect(page.callback).toBeUndefined();
    expect(page.page).toContain('The login name or password is incorrect.');
  });
});
