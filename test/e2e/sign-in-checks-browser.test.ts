// Sign-in checks in Chromium: an org scope of another org, projectRoleCheck without a grant and hasProjectCheck for a
// user of another org end on a page that says why (English and German), whose button returns access_denied to the app;
// a session reused without the login pages is refused with access_denied too.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { createOidcApp, createOrg, defaultOrgId, pkceAuthorization } from '../helpers/oidc.ts';
import { startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';
import { addProject, updateProject } from '../../src/projects/service.ts';
import { addProjectRoles } from '../../src/projects/roles.ts';
import { addUserGrant } from '../../src/grants/service.ts';

describe('sign-in checks in a browser', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let browser: Browser;
  let redirectUri: string;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    callback = await startCallbackServer();
    redirectUri = `${callback.url}/cb`;
    orgId = await defaultOrgId(server);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
  });

  /** An app of a project of `owner` with the checks given. */
  async function app(checks: { projectRoleCheck?: boolean; hasProjectCheck?: boolean }, owner = orgId) {
    const { projectId } = await addProject(
      server.db,
      { orgId: owner, name: `checked-${Date.now()}-${Math.random()}` },
      't',
    );
    await updateProject(
      server.db,
      { orgId: owner, projectId },
      {
        name: `p-${projectId}`,
        projectRoleAssertion: false,
        projectRoleCheck: checks.projectRoleCheck ?? false,
        hasProjectCheck: checks.hasProjectCheck ?? false,
      },
      't',
    );
    return createOidcApp(server, { authMethod: 'none', redirectUris: [redirectUri], devMode: true }, projectId);
  }

  async function start(page: Page, clientId: string, params: Record<string, string> = {}) {
    const { url } = await pkceAuthorization(server, clientId, { redirect_uri: redirectUri, state: 'st', ...params });
    await page.goto(String(url));
  }

  async function backAtApp(page: Page, action: () => Promise<unknown>): Promise<URLSearchParams> {
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(redirectUri), { timeout: 15_000 }), action()]);
    return new URL(page.url()).searchParams;
  }

  async function expectRefusal(page: Page, text: RegExp, name: string) {
    await expect.poll(() => page.locator('#refused-message').textContent()).toMatch(text);
    await screenshot(page, name);
    const params = await backAtApp(page, () => page.click('#refused-continue'));
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('st');
    expect(params.get('code')).toBeNull();
  }

  it('projectRoleCheck: no grant ends on the page and access_denied; with a grant the sign-in succeeds', async () => {
    const checked = await app({ projectRoleCheck: true });
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = page.waitForResponse((r) => r.url().includes('/password') && r.request().method() === 'POST');
    await start(page, checked.clientId);
    await signIn(page, 'admin', ADMIN_PASSWORD);
    expect((await response).status()).toBe(403);
    await expectRefusal(page, /not been granted a role/, 'refused-project-role');
    // a session is there now: the next authorization skips the login pages and is still refused
    await start(page, checked.clientId);
    await page.waitForURL((u) => u.toString().startsWith(redirectUri), { timeout: 15_000 });
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
    // granted, the same browser gets a code
    const { rows } = await server.db.query<{ id: string }>("SELECT id FROM users WHERE user_name = 'admin'");
    const ref = { orgId, projectId: checked.projectId };
    await addProjectRoles(server.db, ref, { roles: [{ key: 'user', displayName: 'User' }] }, 'Add', 't');
    await addUserGrant(
      server.db,
      { orgId, userId: rows[0]!.id, projectId: checked.projectId, roleKeys: ['user'] },
      't',
    );
    const params = await backAtApp(page, () => start(page, checked.clientId));
    expect(params.get('code')).toEqual(expect.any(String));
    await context.close();
  });

  it('hasProjectCheck: a user of another org than the project owner is refused, in German with ui_locales=de', async () => {
    const other = await createOrg(server);
    const checked = await app({ hasProjectCheck: true }, other);
    const context = await browser.newContext();
    const page = await context.newPage();
    await start(page, checked.clientId, { ui_locales: 'de' });
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('de');
    await expectRefusal(page, /Ihre Organisation hat keinen Zugang/, 'refused-has-project-de');
    await context.close();
  });

  it("an org scope of another org refuses the user; the user's own org signs in", async () => {
    const plain = await app({});
    const other = await createOrg(server);
    const context = await browser.newContext();
    const page = await context.newPage();
    await start(page, plain.clientId, { scope: `openid urn:zitadel:iam:org:id:${other}` });
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await expectRefusal(page, /does not belong to the organization/, 'refused-org');
    const params = await backAtApp(page, () =>
      start(page, plain.clientId, { scope: `openid urn:zitadel:iam:org:id:${orgId}` }),
    );
    expect(params.get('code')).toEqual(expect.any(String));
    await context.close();
  });
});
