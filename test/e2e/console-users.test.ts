// The console's user page in a real browser (Chromium): the admin opens a user from the list, sees its profile, grants
// and memberships, locks, unlocks, deactivates and reactivates it (each checked through GetUserByID), sets its
// password (a weak one is the form's message; "ask for a new one" sends the person to the change page) and the
// person signs in with it, then removes it; the API answers 404. A machine user's keys are removed, and the user
// too, with JavaScript off; its personal access tokens are added (shown once), used and removed. A person's sign-in
// sessions are listed with their app, and gone after LockUser. The owner of another org gets "not found"; a
// cross-site post changes nothing; a hostile user name stays text; axe-core finds no serious or critical violation
// on both kinds of user page.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { signIn } from '../helpers/browser.ts';
import { axeViolations, consolePage, docsScreenshot, signedIn, useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson, type Outcome } from '../helpers/management.ts';
import { setUpOtherOrgApp } from '../helpers/other-org.ts';

describe('a user page of the console in a browser', () => {
  const env = useConsoleTestEnv();

  const api = (method: string, rest: [string, string], body?: Record<string, unknown>, orgId?: string) =>
    callRest(env.server.url, { service: ManagementService, method, rest, body }, { token: env.adminToken, orgId });
  const ok = async <T = Record<string, string>>(outcome: Promise<Outcome>) => okJson<T>(await outcome);

  /** A human user who can sign in (verified e-mail, a password). */
  const addHuman = async (userName: string) =>
    (
      await ok(
        api('ImportHumanUser', ['POST', '/management/v1/users/human/_import'], {
          userName,
          profile: { firstName: 'Dora', lastName: 'Explorer', displayName: 'Dora E.', preferredLanguage: 'de' },
          email: { email: `${userName.replace(/\W/g, '')}@example.com`, isEmailVerified: true },
          password: 'Initial-Password-1',
        }),
      )
    ).userId!;
  const stateOf = async (id: string) =>
    (await ok<{ user: { state: string } }>(api('GetUserByID', ['GET', `/management/v1/users/${id}`]))).user.state;
  const userPage = async (id: string, options = {}) => {
    const page = await consolePage(env.browser, options);
    await signedIn(page, env.server.url, `/ui/console/users/${id}`);
    return page;
  };
  const buttons = (page: Page) => page.locator('#user-actions ~ .actions button').allTextContents();
  const notice = (page: Page) => page.locator('#notice').textContent();

  it('opens a user from the list; lock, unlock, deactivate, reactivate, set password, remove', async () => {
    const id = await addHuman('dora');
    const { id: projectId } = await ok(api('AddProject', ['POST', '/management/v1/projects'], { name: 'Atlas' }));
    await ok(
      api('AddProjectRole', ['POST', `/management/v1/projects/${projectId}/roles`], {
        roleKey: 'reader',
        displayName: 'Reader',
      }),
    );
    await ok(api('AddUserGrant', ['POST', `/management/v1/users/${id}/grants`], { projectId, roleKeys: ['reader'] }));
    await ok(api('AddOrgMember', ['POST', '/management/v1/orgs/me/members'], { userId: id, roles: ['ORG_OWNER'] }));

    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, '/ui/console/users?q=dora');
    await page.getByRole('link', { name: 'dora', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/ui/console/users/${id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('dora');
    const profile = page.getByRole('region', { name: 'Profile' });
    expect(await profile.locator('dd').allTextContents()).toEqual(
      expect.arrayContaining(['Dora', 'Explorer', 'Dora E.', 'dora@example.com Verified', 'de']),
    );
    expect(await page.getByRole('region', { name: 'Grants' }).getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['Atlas', 'reader', 'Active']),
    );
    expect(await page.getByRole('region', { name: 'Memberships' }).getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['Organization', 'ORG_OWNER']),
    );
    expect(await page.getByRole('region', { name: 'Second factors and passkeys' }).textContent()).toContain(
      'Nothing here yet.',
    );
    expect(await page.getByRole('heading', { name: 'Keys', exact: true }).count()).toBe(0);
    await docsScreenshot(page, 'console-user');

    // only the actions the state allows, each the API's operation
    expect(await buttons(page)).toEqual(['Lock', 'Deactivate', 'Remove']);
    await page.getByRole('button', { name: 'Lock', exact: true }).click();
    await expect.poll(() => notice(page)).toBe('The user is locked.');
    expect(await stateOf(id)).toBe('USER_STATE_LOCKED');
    expect(await buttons(page)).toEqual(['Unlock', 'Deactivate', 'Remove']);
    await page.getByRole('button', { name: 'Unlock' }).click();
    await expect.poll(() => notice(page)).toBe('The user is unlocked.');
    expect(await stateOf(id)).toBe('USER_STATE_ACTIVE');
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => notice(page)).toBe('The user is deactivated.');
    expect(await stateOf(id)).toBe('USER_STATE_INACTIVE');
    expect(await buttons(page)).toEqual(['Reactivate', 'Remove']);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await expect.poll(() => notice(page)).toBe('The user is active again.');
    expect(await stateOf(id)).toBe('USER_STATE_ACTIVE');

    // a password the complexity policy refuses is the form's message; nothing changed
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    expect(await page.getByRole('region', { name: 'Password' }).locator('#form-error').textContent()).toMatch(
      /Password/i,
    );
    // with "ask for a new password" the person must choose one at the next sign-in
    await page.getByLabel('New password', { exact: true }).fill('Temporary-Password-2');
    await page.getByLabel('Ask for a new password at the next sign-in').check();
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => notice(page)).toBe('The password is set.');
    const person = await consolePage(env.browser);
    await person.goto(`${env.server.url}/ui/account`);
    await signIn(person, 'dora', 'Temporary-Password-2');
    await expect.poll(() => person.getByRole('heading', { level: 1 }).textContent()).toBe('Choose a new password');
    await person.context().close();
    await page.getByLabel('New password', { exact: true }).fill('Dora-New-Password-3');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => notice(page)).toBe('The password is set.');
    const signedInPerson = await consolePage(env.browser);
    await signedInPerson.goto(`${env.server.url}/ui/account`);
    await signIn(signedInPerson, 'dora', 'Dora-New-Password-3');
    await signedInPerson.waitForURL(`${env.server.url}/ui/account`, { timeout: 15_000 });
    await signedInPerson.context().close();

    // removal after the script's confirmation; the API no longer knows the user
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/console/users');
    const gone = await api('GetUserByID', ['GET', `/management/v1/users/${id}`]);
    expect(gone).toMatchObject({ ok: false, status: 404 });
    await page.context().close();
  });

  it("a person's sessions: one row with the app after signing in, none after LockUser", async () => {
    const id = await addHuman('session-sam');
    const page = await userPage(id);
    const sessions = page.getByRole('region', { name: 'Sessions', exact: true });
    expect(await sessions.textContent()).toContain('Nothing here yet.');

    // the person signs in to the account pages: a session that authorized their client
    const person = await consolePage(env.browser);
    await person.goto(`${env.server.url}/ui/account`);
    await signIn(person, 'session-sam', 'Initial-Password-1');
    await person.waitForURL(`${env.server.url}/ui/account`, { timeout: 15_000 });
    await person.context().close();

    await page.reload();
    const rows = sessions.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const [signedInAt, expires, apps, methods] = await rows.first().getByRole('cell').allTextContents();
    expect(apps).toBe('gatehouse-account');
    expect(methods).toBe('pwd');
    // signed in within the last minutes; the session lasts beyond now
    const at = (text: string | undefined) => Date.parse(text!.replace(' ', 'T').replace(' UTC', 'Z'));
    expect(Math.abs(Date.now() - at(signedInAt))).toBeLessThan(10 * 60_000);
    expect(at(expires)).toBeGreaterThan(Date.now());
    // the admin's own console session is on the admin's page, not on this one
    expect(await sessions.textContent()).not.toContain('gatehouse-console');
    const admins = await ok<{ result: { id: string }[] }>(
      api('ListUsers', ['POST', '/management/v1/users/_search'], {
        queries: [{ userNameQuery: { userName: 'admin', method: 'TEXT_QUERY_METHOD_EQUALS' } }],
      }),
    );
    await page.goto(`${env.server.url}/ui/console/users/${admins.result[0]!.id}`);
    expect(await sessions.locator('code').allTextContents()).toContain('gatehouse-console');
    await page.goto(`${env.server.url}/ui/console/users/${id}`);

    // locking ends the person's sessions
    await ok(api('LockUser', ['POST', `/management/v1/users/${id}/_lock`], {}));
    await page.reload();
    expect(await rows.count()).toBe(0);
    expect(await sessions.textContent()).toContain('Nothing here yet.');
    await page.context().close();
  });

  it("a machine user's page: profile and keys; key and user removed with JavaScript off", async () => {
    const { userId } = await ok(
      api('AddMachineUser', ['POST', '/management/v1/users/machine'], {
        userName: 'deploy-bot',
        name: 'Deploy bot',
        description: 'Ships releases',
        accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
      }),
    );
    const { keyId } = await ok(api('AddMachineKey', ['POST', `/management/v1/users/${userId}/keys`], { type: 1 }));
    const page = await userPage(userId!, { javaScriptEnabled: false });
    expect(await page.getByRole('region', { name: 'Profile' }).locator('dd').allTextContents()).toEqual(
      expect.arrayContaining(['Deploy bot', 'Ships releases', 'JWT']),
    );
    expect(await page.getByRole('heading', { name: 'Password' }).count()).toBe(0);
    const keys = page.getByRole('region', { name: 'Keys' });
    expect(await keys.locator('code').allTextContents()).toEqual([keyId]);
    await keys.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Remove ${keyId}?`);
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await expect.poll(() => notice(page)).toBe('The key is removed.');
    const listed = await ok<{ result?: unknown[] }>(
      api('ListMachineKeys', ['POST', `/management/v1/users/${userId}/keys/_search`], {}),
    );
    expect(listed.result).toBeUndefined();

    await page.getByRole('button', { name: 'Lock', exact: true }).click();
    await expect.poll(() => notice(page)).toBe('The user is locked.');
    expect(await stateOf(userId!)).toBe('USER_STATE_LOCKED');
    await page.locator('#user-actions ~ .actions').getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Remove deploy-bot?');
    expect(await stateOf(userId!)).toBe('USER_STATE_LOCKED');
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/console/users');
    expect(await api('GetUserByID', ['GET', `/management/v1/users/${userId}`])).toMatchObject({ status: 404 });
    await page.context().close();
  });

  it("a machine user's personal access tokens: added with a date and shown once, used, then removed", async () => {
    const { userId } = await ok(
      api('AddMachineUser', ['POST', '/management/v1/users/machine'], { userName: 'pat-bot', name: 'PAT bot' }),
    );
    const page = await userPage(userId!, { javaScriptEnabled: false });
    const pats = page.getByRole('region', { name: 'Personal access tokens' });
    await pats.getByLabel('Expiration date (optional)').fill('2099-01-31');
    await pats.getByRole('button', { name: 'Add a token' }).click();
    const shown = await page.getByLabel('Personal access token', { exact: true }).inputValue();
    expect(shown).toMatch(/^gatehouse_pat_[\w-]{43}$/);
    expect(await pats.textContent()).toContain('Copy the token now: it is shown only this once.');
    expect(page.url()).not.toContain(shown);
    const [tokenId] = await pats.locator('code').allTextContents();
    expect(await pats.locator('tbody tr').first().textContent()).toContain('2099-01-31 23:59 UTC');
    // the token works as a bearer of the API, as pat-bot
    const me = await fetch(`${env.server.url}/auth/v1/users/me`, { headers: { authorization: `Bearer ${shown}` } });
    expect(((await me.json()) as { user: { userName: string } }).user.userName).toBe('pat-bot');
    // shown only once: the page read again has the row, not the token
    await page.goto(`${env.server.url}/ui/console/users/${userId}`);
    expect(await page.content()).not.toContain(shown);
    await pats.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Remove ${tokenId}?`);
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await expect.poll(() => notice(page)).toBe('The token is removed.');
    expect(await pats.locator('code').count()).toBe(0);
    const after = await fetch(`${env.server.url}/auth/v1/users/me`, { headers: { authorization: `Bearer ${shown}` } });
    expect(after.status).toBe(401);
    // a date in the past is the form's message, nothing added
    await pats.getByLabel('Expiration date (optional)').fill('2001-01-01');
    await pats.getByRole('button', { name: 'Add a token' }).click();
    expect(await page.locator('#form-error').textContent()).toMatch(/future/);
    expect(await pats.locator('code').count()).toBe(0);
    await page.context().close();
  });

  it("the owner of another org gets 'not found' for the user's page, with or without ?org=", async () => {
    const id = await addHuman('only-here');
    const firstOrg = (await ok<{ org: { id: string } }>(api('GetMyOrg', ['GET', '/management/v1/orgs/me']))).org.id;
    const { owner } = await setUpOtherOrgApp(env.server, env.adminToken, 'https://elsewhere.example/callback');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, '/ui/console/users', owner.userName, owner.password);
    for (const path of [`/ui/console/users/${id}`, `/ui/console/users/${id}?org=${firstOrg}`]) {
      const response = await page.goto(`${env.server.url}${path}`);
      expect(response?.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
      expect(await page.content()).not.toContain('only-here');
    }
    // nor can the owner act on the user
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const posted = await page.request.post(`${env.server.url}/ui/console/users/${id}/state`, {
      form: { csrf, action: 'lock' },
      headers: { origin: env.server.url },
    });
    expect(posted.status()).toBe(404);
    expect(await stateOf(id)).toBe('USER_STATE_ACTIVE');
    await page.context().close();
  });

  it('a form posted from another origin changes nothing and is not a 5xx', async () => {
    const id = await addHuman('cross-site');
    const page = await userPage(id);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    await page.goto('about:blank');
    await page.setContent(
      `<form method="post" action="${env.server.url}/ui/console/users/${id}/state">` +
        `<input name="action" value="lock"><input name="csrf" value="${csrf}"></form>`,
    );
    const [response] = await Promise.all([page.waitForNavigation(), page.evaluate(() => document.forms[0]!.submit())]);
    expect(response?.status()).toBe(403);
    expect(await stateOf(id)).toBe('USER_STATE_ACTIVE');
    await page.context().close();
  });

  it("an action the state no longer allows, or an unknown one, is the page again with the API's message", async () => {
    const id = await addHuman('stale');
    const page = await userPage(id);
    // locked elsewhere after the page was shown: the page's Lock is refused, nothing else happens
    await ok(api('LockUser', ['POST', `/management/v1/users/${id}/_lock`], {}));
    const lock = page.waitForResponse((r) => r.url().includes('/state'));
    await page.getByRole('button', { name: 'Lock', exact: true }).click();
    expect((await lock).status()).toBe(400);
    expect(await page.locator('#form-error').textContent()).toBe('User should be active (COMMAND-3NN8v)');
    expect(await buttons(page)).toEqual(['Unlock', 'Deactivate', 'Remove']);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const unknown = await page.request.post(`${env.server.url}/ui/console/users/${id}/state`, {
      form: { csrf, action: 'explode' },
      headers: { origin: env.server.url },
    });
    expect(unknown.status()).toBe(400);
    expect(await unknown.text()).toContain('invalid action: explode');
    expect(await stateOf(id)).toBe('USER_STATE_LOCKED');
    await page.context().close();
  });

  it('shows a hostile user name as text, on the list, the page and its removal confirmation', async () => {
    const name = '<img src=x onerror=alert(1)>';
    const id = await addHuman(name);
    const page = await consolePage(env.browser, { javaScriptEnabled: true });
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await signedIn(page, env.server.url, `/ui/console/users?q=${encodeURIComponent('<img')}`);
    await page.getByRole('link', { name, exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/ui/console/users/${id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    expect(await page.locator('img[src=x]').count()).toBe(0);
    // the script's confirmation is dismissed (nothing is removed); the server's confirmation page names the user
    await page.getByRole('button', { name: 'Remove' }).click();
    expect(await stateOf(id)).toBe('USER_STATE_ACTIVE');
    const confirm = await page.request.post(`${env.server.url}/ui/console/users/${id}/remove`, {
      form: { csrf: await page.locator('input[name=csrf]').first().inputValue() },
      headers: { origin: env.server.url },
    });
    const confirmation = await confirm.text();
    expect(confirmation).toContain('<h1>Remove &lt;img src=x onerror=alert(1)>?</h1>');
    expect(confirmation).not.toContain('<img src=x');
    expect(dialogs).toBe(1); // the removal's question, not the name's script
    await page.context().close();
  });

  it("axe-core finds no serious or critical violation on a human's and a machine's page", async () => {
    const human = await addHuman('axe-human');
    const { userId: machine } = await ok(
      api('AddMachineUser', ['POST', '/management/v1/users/machine'], { userName: 'axe-bot', name: 'Axe bot' }),
    );
    await ok(api('AddMachineKey', ['POST', `/management/v1/users/${machine}/keys`], { type: 1 }));
    const page = await userPage(human, { bypassCSP: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${env.server.url}/ui/console/users/${machine}`);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });

  // Last: the admin service account gives up IAM_OWNER here, so the API token has no more use after this test.
  it('a removal the API refuses (the last IAM_OWNER) is the page again with its message', async () => {
    const admin = (
      await ok<{ result: { id: string }[] }>(
        api('ListUsers', ['POST', '/management/v1/users/_search'], {
          queries: [{ userNameQuery: { userName: 'admin', method: 'TEXT_QUERY_METHOD_EQUALS' } }],
        }),
      )
    ).result[0]!.id;
    const members = await ok<{ result: { userId: string; userType: string }[] }>(
      callRest(
        env.server.url,
        { service: AdminService, method: 'ListIAMMembers', rest: ['POST', '/admin/v1/members/_search'], body: {} },
        { token: env.adminToken },
      ),
    );
    const serviceAccount = members.result.find((m) => m.userType === 'TYPE_MACHINE')!.userId;
    await ok(
      callRest(
        env.server.url,
        {
          service: AdminService,
          method: 'RemoveIAMMember',
          rest: ['DELETE', `/admin/v1/members/${serviceAccount}`],
          body: { userId: serviceAccount },
        },
        { token: env.adminToken },
      ),
    );
    const page = await userPage(admin);
    page.once('dialog', (dialog) => void dialog.accept());
    const removal = page.waitForResponse((r) => r.url().includes('/remove'));
    await page.getByRole('button', { name: 'Remove' }).click();
    expect((await removal).status()).toBe(400);
    expect(await page.locator('#form-error').textContent()).toBe(
      'The last IAM_OWNER cannot be removed or demoted (IAM-L4stOw)',
    );
    await page.goto(`${env.server.url}/ui/console/users/${admin}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('admin');
    await page.context().close();
  });
});
