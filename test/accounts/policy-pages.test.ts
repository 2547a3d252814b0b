// The pages say the password policy and name its failing rule in the page's language (registration), and an imported
// user with passwordChangeRequired chooses a new password at the first sign-in.
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import { Browser, createOidcApp, pkceAuthorization } from '../helpers/oidc.ts';
import { updatePasswordPolicy } from '../../src/passwords/service.ts';

describe('the password policy on the pages', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    ({ server, adminToken: admin } = await startServerWithAdminKey());
  });
  afterAll(async () => server?.stop());

  it('registration shows the policy and refuses a password that breaks it, naming the rule in the page language', async () => {
    const { rows } = await server.db.query<{ id: string }>('SELECT id FROM instance');
    await updatePasswordPolicy(
      server.db,
      rows[0]!.id,
      { minLength: 10, hasUppercase: false, hasLowercase: false, hasNumber: true, hasSymbol: false },
      'test',
    );
    try {
      const app = await createOidcApp(server, { authMethod: 'none' });
      const browser = new Browser(server);
      const { url } = await pkceAuthorization(server, app.clientId, { prompt: 'create', ui_locales: 'de' });
      const page = await browser.follow(String(url));
      const form = await page.response.text();
      // the field's help says the policy before anyone breaks it
      expect(form).toContain(
        'Mindestens 10 Zeichen. Eine lange Passphrase ist am besten. Es muss enthalten: eine Ziffer.',
      );
      const csrf = /name="csrf" value="([^"]*)"/.exec(form)![1]!;
      const res = await browser.request(`${page.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: new URLSearchParams({
          csrf,
          firstName: 'No',
          lastName: 'Digits',
          email: 'nodigits@example.com',
          userName: 'nodigits',
          password: 'no-digits-at-all',
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('Verwenden Sie mindestens eine Ziffer.');
      const created = await server.db.query("SELECT 1 FROM users WHERE user_name = 'nodigits'");
      expect(created.rows).toEqual([]);
    } finally {
      await updatePasswordPolicy(
        server.db,
        rows[0]!.id,
        { minLength: 8, hasUppercase: false, hasLowercase: false, hasNumber: false, hasSymbol: false },
        'test',
      );
    }
  });

  it('ImportHumanUser with passwordChangeRequired: the first sign-in asks for a new password', async () => {
    const { userId } = okJson<{ userId: string }>(
      await callRest(
        server.url,
        {
          service: ManagementService,
          method: 'ImportHumanUser',
          rest: ['POST', '/management/v1/users/human/_import'],
          body: {
            userName: 'temporary',
            profile: { firstName: 'Temp', lastName: 'User' },
            email: { email: 'temporary@example.com' },
            password: 'Temporary-Password-1',
            passwordChangeRequired: true,
          },
        },
        { token: admin },
      ),
    );
    const app = await createOidcApp(server, { authMethod: 'none' });
    const browser = new Browser(server);
    const { url } = await pkceAuthorization(server, app.clientId);
    const first = await browser.follow(String(url));
    const signedIn = await browser.submitLogin(first.url, 'temporary', 'Temporary-Password-1');
    const page = await signedIn.response.text();
    expect(page).toContain('name="ticket"');
    // the ticket binds the user to this interaction: a forged one is refused
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)![1]!;
    const forged = await browser.request(`${first.url}/password-change`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ csrf, ticket: 'v1.forged.ticket.value', newPassword: 'Chosen-Password-2' }),
    });
    expect(forged.status).toBe(400);
    const ticket = /name="ticket" value="([^"]*)"/.exec(page)![1]!;
    const changed = await browser.follow(`${first.url}/password-change`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ csrf, ticket, newPassword: 'Chosen-Password-2' }),
    });
    expect(new URL(changed.url).origin).toBe('https://rp.example.com');
    expect(new URL(changed.url).searchParams.get('code')).toBeTruthy();
    const { rows } = await server.db.query('SELECT password_change_required FROM users WHERE id = $1', [userId]);
    expect(rows[0]).toEqual({ password_change_required: false });
  });
});
