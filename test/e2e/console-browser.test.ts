// The admin console in a real browser (Chromium): it signs in through the login pages, creates a project, a role and an
// app through the API's operations (checked through the REST API), shows the client secret once, and works with
// JavaScript off; a user without a management role sees no data; a cross-site post changes nothing; a hostile name
// stays text; axe-core finds no serious or critical violation. Screenshots go to docs/screenshots/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { signIn } from '../helpers/browser.ts';
import {
  axeViolations,
  consolePage as newConsolePage,
  docsScreenshot,
  signedIn as signedInAt,
  useConsoleTestEnv,
} from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { defaultOrgId } from '../helpers/oidc.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';

describe('admin console in a browser', () => {
  const env = useConsoleTestEnv();

  const api = (method: string, rest: [string, string], body?: Record<string, unknown>) =>
    callRest(env.server.url, { service: ManagementService, method, rest, body }, { token: env.adminToken });

  const consolePage = (options: BrowserContextOptions = {}): Promise<Page> => newConsolePage(env.browser, options);
  const signedIn = (page: Page, path: string, loginName?: string, password?: string) =>
    signedInAt(page, env.server.url, path, loginName, password);
  const shot = docsScreenshot;
  /** A tab of the project's pages (its sub-navigation), by its exact name. */
  const tab = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name, exact: true });

  async function projectByName(name: string) {
    const list = okJson<{ result?: { id: string; name: string }[] }>(
      await api('ListProjects', ['POST', '/management/v1/projects/_search'], {}),
    );
    return list.result?.find((p) => p.name === name);
  }

  it('the admin signs in, creates a project, a role and an app; the secret is shown once and matches the API', async () => {
    const page = await consolePage();
    await signedIn(page, '/ui/console/projects');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Shop');
    const project = await projectByName('Shop');
    expect(project).toBeDefined();
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByLabel('Search by name').fill('HOP');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByRole('main').getByRole('link').allTextContents()).toEqual(['Shop']);
    await page.getByLabel('Search by name').fill('nothing like it');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByText('Nothing here yet.').count()).toBe(1);
    await page.goto(`${env.server.url}/ui/console/projects/${project!.id}/roles`);

    await page.getByLabel('Key', { exact: true }).fill('admin');
    await page.getByRole('button', { name: 'Add role' }).click();
    const roles = okJson<{ result?: { key: string }[] }>(
      await api('ListProjectRoles', ['POST', `/management/v1/projects/${project!.id}/roles/_search`], {}),
    );
    expect(roles.result?.map((r) => r.key)).toEqual(['admin']);
    await tab(page, 'User grants').click();
    await page.getByRole('region', { name: 'User grants' }).getByLabel('User name').fill('nobody');
    await page.getByRole('button', { name: 'Grant roles' }).click();
    expect(await page.locator('#form-error').textContent()).toMatch(/no user with this user name/);
    await page.getByRole('region', { name: 'User grants' }).getByLabel('User name').fill('admin');
    await page.getByRole('region', { name: 'User grants' }).getByRole('checkbox', { name: 'admin' }).check();
    await page.getByRole('button', { name: 'Grant roles' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const grants = okJson<{ result?: { roleKeys: string[]; userName: string }[] }>(
      await api('ListUserGrants', ['POST', '/management/v1/users/grants/_search'], {
        queries: [{ projectIdQuery: { projectId: project!.id } }],
      }),
    );
    expect(grants.result?.map((g) => [g.userName, g.roleKeys])).toEqual([['admin', ['admin']]]);
    await tab(page, 'Members').click();
    await page.getByRole('region', { name: 'Members' }).getByLabel('User name').fill('admin');
    await page.getByRole('checkbox', { name: 'PROJECT_OWNER', exact: true }).check();
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const members = okJson<{ result?: { roles: string[] }[] }>(
      await api('ListProjectMembers', ['POST', `/management/v1/projects/${project!.id}/members/_search`], {}),
    );
    expect(members.result?.map((m) => m.roles)).toEqual([['PROJECT_OWNER']]);
    // roles: edit a display name; remove one after the script's confirmation
    await tab(page, 'Roles').click();
    await page.getByLabel('Key', { exact: true }).fill('reader');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-admin-displayName').fill('Administrators');
    await page
      .getByRole('row', { name: /^admin/ })
      .getByRole('button', { name: 'Save' })
      .click();
    page.once('dialog', (dialog) => void dialog.accept());
    // the removal posts and lands on the roles tab again: wait for that page, not for a moment of navigation
    await Promise.all([
      page.waitForEvent('load'),
      page
        .getByRole('row', { name: /^reader/ })
        .getByRole('button', { name: 'Remove' })
        .click(),
    ]);
    expect(await page.getByRole('row', { name: /^reader/ }).count()).toBe(0);
    const editedRoles = okJson<{ result?: { key: string; displayName: string }[] }>(
      await api('ListProjectRoles', ['POST', `/management/v1/projects/${project!.id}/roles/_search`], {}),
    );
    expect(editedRoles.result?.map((r) => [r.key, r.displayName])).toEqual([['admin', 'Administrators']]);
    await tab(page, 'Settings').click();
    await page.getByRole('checkbox', { name: 'Assert roles on authentication' }).check();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const got = okJson<{ project: { projectRoleAssertion?: boolean } }>(
      await api('GetProjectByID', ['GET', `/management/v1/projects/${project!.id}`]),
    );
    expect(got.project.projectRoleAssertion).toBe(true);

    await tab(page, 'Apps').click();
    await page.getByRole('link', { name: 'New app' }).click();
    await page.getByRole('link', { name: /^Web app/ }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop web');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://shop.example.com/callback');
    await page.getByRole('button', { name: 'Create app' }).click();
    const clientId = await page.locator('#client-id').inputValue();
    const secret = await page.locator('#client-secret').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await expect.poll(() => page.getByRole('button', { name: 'Copy' }).count()).toBe(2);
    await shot(page, 'console-app-created');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByText('Download as a file').click()]);
    const keyFile = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Record<string, string>;
    expect([keyFile.clientId, keyFile.clientSecret]).toEqual([clientId, secret]);
    type Listed = { id: string; oidcConfig?: { clientId: string; redirectUris: string[]; grantTypes: string[] } };
    const apps = okJson<{ result?: Listed[] }>(
      await api('ListApps', ['POST', `/management/v1/projects/${project!.id}/apps/_search`], {}),
    );
    expect(apps.result?.[0]?.oidcConfig?.clientId).toBe(clientId);
    expect(apps.result?.[0]?.oidcConfig?.redirectUris).toEqual(['https://shop.example.com/callback']);
    // a new app's defaults, the same as `gatehouse app create` gives: refresh tokens with offline_access
    expect(apps.result?.[0]?.oidcConfig?.grantTypes).toEqual([
      'OIDC_GRANT_TYPE_AUTHORIZATION_CODE',
      'OIDC_GRANT_TYPE_REFRESH_TOKEN',
    ]);
    // the app's page never shows the secret again
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    expect(await page.locator('#client-id').textContent()).toBe(clientId);
    expect(await page.content()).not.toContain(secret);
    await page
      .getByLabel('Redirect URIs', { exact: true })
      .fill('https://shop.example.com/cb\nhttps://shop.example.com/cb2');
    await page.getByRole('checkbox', { name: 'JWT access tokens' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const appPath = `/management/v1/projects/${project!.id}/apps/${apps.result![0]!.id}`;
    const edited = okJson<{ app: { oidcConfig: { redirectUris: string[]; accessTokenType?: string } } }>(
      await api('GetAppByID', ['GET', appPath]),
    );
    expect(edited.app.oidcConfig.redirectUris).toEqual(['https://shop.example.com/cb', 'https://shop.example.com/cb2']);
    expect(edited.app.oidcConfig.accessTokenType).toBe('OIDC_TOKEN_TYPE_JWT');
    await page.getByRole('button', { name: 'Regenerate secret' }).click();
    const newSecret = await page.locator('#client-secret').inputValue();
    expect(newSecret).not.toBe(secret);
    expect(await page.locator('#client-id').inputValue()).toBe(clientId);
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Reactivate' }).count()).toBe(1);
    const deactivated = okJson<{ app: { state: string } }>(await api('GetAppByID', ['GET', appPath]));
    expect(deactivated.app.state).toBe('APP_STATE_INACTIVE');
    await page.getByRole('main').getByRole('link', { name: 'Shop' }).click();
    expect(await page.getByRole('link', { name: 'Shop web' }).count()).toBe(1);
    await tab(page, 'Overview').click();
    await shot(page, 'console-project');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    // the overview's app count is the org's apps over all its projects, as the API lists them
    const projects = okJson<{ result: { id: string }[] }>(
      await api('ListProjects', ['POST', '/management/v1/projects/_search'], { query: { limit: 1000 } }),
    );
    let appCount = 0;
    for (const { id } of projects.result) {
      const list = okJson<{ details?: { totalResult?: string } }>(
        await api('ListApps', ['POST', `/management/v1/projects/${id}/apps/_search`], {}),
      );
      appCount += Number(list.details?.totalResult ?? 0);
    }
    expect(appCount).toBeGreaterThan(0);
    expect(await page.locator('.counts li', { hasText: 'Apps' }).locator('strong').textContent()).toBe(`${appCount}`);
    await shot(page, 'console-overview');
    await page.context().close();
  });

  it('an IAM_OWNER creates an organization with its first owner (SetUpOrg) and deactivates it, in German', async () => {
    const page = await consolePage({ locale: 'de-DE' });
    await signedIn(page, '/ui/console/orgs');
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual([
      'Übersicht',
      'Organisationen',
      'Projekte',
      'Benutzer',
      'Identitätsanbieter',
      'Richtlinien',
      'Protokoll',
    ]);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Acme');
    await page.getByLabel('Benutzername').fill('acme-owner');
    await page.getByLabel('E-Mail').fill('owner@acme.example.com');
    await page.getByLabel('Vorname').fill('Ada');
    await page.getByLabel('Nachname').fill('Owner');
    await page.getByLabel('Passwort').fill('Acme-Owner-Password-1');
    await page.getByRole('button', { name: 'Organisation erstellen' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Acme');
    const orgs = okJson<{ result?: { id: string; name: string; state: string }[] }>(
      await callRest(
        env.server.url,
        { service: AdminService, method: 'ListOrgs', rest: ['POST', '/admin/v1/orgs/_search'], body: {} },
        { token: env.adminToken },
      ),
    );
    const acme = orgs.result?.find((o) => o.name === 'Acme');
    expect(acme?.state).toBe('ORG_STATE_ACTIVE');
    expect(await page.getByRole('cell', { name: 'Ada Owner' }).count()).toBe(1);
    await page.getByLabel('Benutzername').fill('acme-owner');
    await page.getByRole('checkbox', { name: 'ORG_USER_MANAGER' }).check();
    await page.getByRole('button', { name: 'Mitglied hinzufügen' }).click();
    // already a member: the API's refusal above the form, nothing changed
    expect(await page.locator('#form-error').textContent()).not.toBe('');
    const members = okJson<{ result?: { userId: string; roles: string[] }[] }>(
      await callRest(
        env.server.url,
        {
          service: ManagementService,
          method: 'ListOrgMembers',
          rest: ['POST', '/management/v1/orgs/me/members/_search'],
          body: {},
        },
        { token: env.adminToken, orgId: acme!.id },
      ),
    );
    expect(members.result?.map((m) => m.roles)).toEqual([['ORG_OWNER']]);
    await page.getByRole('button', { name: 'Deaktivieren' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Reaktivieren' }).count()).toBe(1);
    const after = okJson<{ org: { state: string } }>(
      await callRest(
        env.server.url,
        { service: ManagementService, method: 'GetMyOrg', rest: ['GET', '/management/v1/orgs/me'] },
        { token: env.adminToken, orgId: acme!.id },
      ),
    );
    expect(after.org.state).toBe('ORG_STATE_INACTIVE');
    await page.context().close();
  });

  it('works with JavaScript off: forms post, removal asks on its own page', async () => {
    const page = await consolePage({ javaScriptEnabled: false });
    await signedIn(page, '/ui/console/projects');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('NoScript');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('NoScript');
    const noScript = await projectByName('NoScript');
    expect(noScript).toBeDefined();
    // an API app: the secret is on the page without the script, its copy buttons stay hidden
    await page.getByRole('link', { name: 'New app' }).click();
    await page.getByRole('link', { name: /^API/ }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Billing API');
    await page.getByRole('button', { name: 'Create app' }).click();
    const clientId = await page.locator('#client-id').inputValue();
    expect(await page.locator('#client-secret').inputValue()).not.toBe('');
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0);
    const apps = okJson<{ result?: { apiConfig?: { clientId: string } }[] }>(
      await api('ListApps', ['POST', `/management/v1/projects/${noScript!.id}/apps/_search`], {}),
    );
    expect(apps.result?.map((a) => a.apiConfig?.clientId)).toEqual([clientId]);
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    await page.getByRole('main').getByRole('link', { name: 'NoScript' }).click();
    await tab(page, 'Settings').click();
    await page.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Remove NoScript?');
    expect(await projectByName('NoScript')).toBeDefined();
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/console/projects');
    expect(await projectByName('NoScript')).toBeUndefined();
    await page.context().close();
  });

  it('a user without a management role gets the "no access" page and no data', async () => {
    const input = registrationSchema.parse({
      firstName: 'Plain',
      lastName: 'User',
      email: 'plain@example.com',
      userName: 'plain',
      password: 'Plain-Password-1',
    });
    await registerHuman(env.server.db, await defaultOrgId(env.server), input, 'en');
    const page = await consolePage();
    await page.goto(`${env.server.url}/ui/console/projects`);
    await signIn(page, 'plain', 'Plain-Password-1');
    await page.waitForURL((url) => url.pathname === '/ui/console/projects');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No access');
    expect(await page.getByRole('link', { name: 'Go to your account' }).getAttribute('href')).toBe('/ui/account');
    const html = await page.content();
    expect(html).not.toContain('Shop');
    expect(await page.getByRole('navigation').count()).toBe(0);
    await shot(page, 'console-no-access');
    await page.context().close();
  });

  it('a form posted from another origin changes nothing and is not a 5xx', async () => {
    const page = await consolePage();
    await signedIn(page, '/ui/console/projects');
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    await page.goto('about:blank');
    await page.setContent(
      `<form method="post" action="${env.server.url}/ui/console/projects">` +
        `<input name="name" value="Evil"><input name="csrf" value="${csrf}"></form>`,
    );
    const [response] = await Promise.all([page.waitForNavigation(), page.evaluate(() => document.forms[0]!.submit())]);
    expect(response?.status()).toBe(403);
    expect(await projectByName('Evil')).toBeUndefined();
    await page.context().close();
  });

  it('shows a hostile project name as text', async () => {
    const name = '<img src=x onerror=alert(1)>';
    const page = await consolePage();
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await signedIn(page, '/ui/console/projects');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    await page.getByRole('link', { name: 'Projects' }).click();
    expect(await page.getByRole('link', { name }).count()).toBe(1);
    expect(await page.locator('img[src=x]').count()).toBe(0);
    expect(dialogs).toBe(0);
    await page.context().close();
  });

  it('"Sign out" ends the console session and the login session', async () => {
    const page = await consolePage();
    await signedIn(page, '/ui/console');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#logout').click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto(`${env.server.url}/ui/console`);
    expect(await page.locator('#loginName').count()).toBe(1);
    await page.context().close();
  });

  it('axe-core finds no serious or critical violation on the main pages', async () => {
    // the CSP allows no injected script; axe runs in the page only in this test's context
    const page = await consolePage({ bypassCSP: true });
    const project = await projectByName('Shop');
    await signedIn(page, '/ui/console');
    for (const path of [
      '/ui/console',
      '/ui/console/projects',
      `/ui/console/projects/${project!.id}`,
      `/ui/console/projects/${project!.id}/apps/new`,
      '/ui/console/orgs',
      '/ui/console/audit',
      '/ui/console/users?q=adm',
    ]) {
      await page.goto(`${env.server.url}${path}`);
      const violations = await axeViolations(page);
      expect(violations.map((id) => `${path}: ${id}`)).toEqual([]);
    }
    await page.context().close();
  });
});
