// A newcomer's first hour with the console in a real browser (Chromium): the overview lists the project, app and user
// just made, newest first, each named and linked; five wrong passwords lock a person, the user list and page say so
// with the attempts, and Unlock (UnlockUser) lets the person sign in at once; a session names the org's app and
// project with the client id below; every page fits a 390 px phone without scrolling sideways (the screenshots of
// docs/, *-390.png, are taken there).
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { signIn } from '../helpers/browser.ts';
import {
  consolePage,
  docsScreenshot,
  sidewaysOverflow,
  signedIn,
  SMALL_SCREEN,
  useConsoleTestEnv,
} from '../helpers/console.ts';
import { callRest, okJson, type Outcome } from '../helpers/management.ts';
import { Browser, CALLBACK, pkceAuthorization } from '../helpers/oidc.ts';

const PASSWORD = 'First-Hour-Password-1';

describe('the first hour in the console', () => {
  const env = useConsoleTestEnv();

  const api = (method: string, rest: [string, string], body?: Record<string, unknown>) =>
    callRest(env.server.url, { service: ManagementService, method, rest, body }, { token: env.adminToken });
  const ok = async <T = Record<string, string>>(outcome: Promise<Outcome>) => okJson<T>(await outcome);
  const addHuman = async (userName: string) =>
    (
      await ok(
        api('ImportHumanUser', ['POST', '/management/v1/users/human/_import'], {
          userName,
          profile: { firstName: 'Lena', lastName: 'Lock', displayName: 'Lena L.' },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
          password: PASSWORD,
        }),
      )
    ).userId!;
  const addProjectAndApp = async (projectName: string, appName: string) => {
    const { id: projectId } = await ok(api('AddProject', ['POST', '/management/v1/projects'], { name: projectName }));
    const app = await ok(
      api('AddOIDCApp', ['POST', `/management/v1/projects/${projectId}/apps/oidc`], {
        name: appName,
        redirectUris: [CALLBACK],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
        appType: 'OIDC_APP_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      }),
    );
    return { projectId: projectId!, appId: app.appId!, clientId: app.clientId! };
  };
  const cells = (page: Page, region: string) =>
    page.getByRole('region', { name: region, exact: true }).locator('tbody tr');

  it('the overview lists the project, app and user just made, newest first, each linked to its page', async () => {
    const { projectId, appId } = await addProjectAndApp('Orbit', 'Orbit Web');
    const userId = await addHuman('nova');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, '/ui/console');
    const rows = await cells(page, 'Recent changes').evaluateAll((trs) =>
      trs.map((tr) => ({
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim()),
        href: tr.querySelector('a')?.getAttribute('href') ?? '',
      })),
    );
    const at = (label: string, name: string) => rows.findIndex((r) => r.cells[0] === label && r.cells[1] === name);
    const [user, app, project] = [
      at('User created', 'nova'),
      at('App created', 'Orbit Web'),
      at('Project created', 'Orbit'),
    ];
    expect([user, app, project].every((i) => i >= 0)).toBe(true);
    expect(user).toBeLessThan(app);
    expect(app).toBeLessThan(project);
    expect(rows[user]!.href).toContain(`/ui/console/users/${userId}?org=`);
    expect(rows[app]!.href).toContain(`/ui/console/projects/${projectId}/apps/${appId}?org=`);
    expect(rows[project]!.href).toContain(`/ui/console/projects/${projectId}?org=`);
    expect(rows.length).toBeLessThanOrEqual(10);
    // the link opens the user's page
    await page.getByRole('region', { name: 'Recent changes' }).getByRole('link', { name: 'nova' }).click();
    await page.waitForURL((url) => url.pathname === `/ui/console/users/${userId}`);
    // German words for the same events
    const german = await consolePage(env.browser, { locale: 'de-DE' });
    await signedIn(german, env.server.url, '/ui/console');
    expect(await cells(german, 'Letzte Änderungen').first().locator('td').first().textContent()).toBe(
      'Benutzer angelegt',
    );
    await page.context().close();
    await german.context().close();
  });

  it('five wrong passwords lock the person; the list and page say so, and Unlock lets them sign in', async () => {
    const policy = await okJson<{ policy: { maxPasswordAttempts: string } }>(
      await callRest(
        env.server.url,
        { service: AdminService, method: 'GetLockoutPolicy', rest: ['GET', '/admin/v1/policies/lockout'] },
        { token: env.adminToken },
      ),
    );
    expect(policy.policy.maxPasswordAttempts).toBe('5');
    const id = await addHuman('lena');

    // the person types a wrong password five times on the login page
    const person = await consolePage(env.browser);
    await person.goto(`${env.server.url}/ui/account`);
    await signIn(person, 'lena', 'wrong-1');
    for (let attempt = 2; attempt <= 5; attempt++) {
      await person.fill('#password', `wrong-${attempt}`);
      await person.click('#submit');
      await person.waitForLoadState();
    }
    await person.fill('#password', PASSWORD);
    const [refused] = await Promise.all([
      person.waitForResponse((r) => r.request().method() === 'POST'),
      person.click('#submit'),
    ]);
    expect(refused.status()).toBe(429);

    // the admin sees the lock in the list and on the page
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, '/ui/console/users?q=lena');
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: 'lena', exact: true }) });
    expect(await row.textContent()).toContain('Locked: 5 failed sign-ins');
    await row.getByRole('link', { name: 'lena', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/ui/console/users/${id}`);
    const profile = page.getByRole('region', { name: 'Profile' });
    expect(await profile.textContent()).toMatch(
      /Locked after 5 failed sign-in attempts, until \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(await page.locator('#user-actions ~ .actions button').allTextContents()).toEqual([
      'Unlock',
      'Deactivate',
      'Remove',
    ]);
    await docsScreenshot(page, 'console-user-locked');
    await page.setViewportSize(SMALL_SCREEN);
    expect(await sidewaysOverflow(page)).toBe(0);
    await docsScreenshot(page, 'console-user-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.waitForURL((url) => url.searchParams.get('done') === 'unlock');
    expect(await page.locator('#notice').textContent()).toBeTruthy();
    expect(await profile.textContent()).not.toContain('Locked');
    expect(await page.locator('#user-actions ~ .actions button').allTextContents()).toEqual([
      'Lock',
      'Deactivate',
      'Remove',
    ]);

    // the person signs in at once with the right password
    await person.goto(`${env.server.url}/ui/account`);
    await signIn(person, 'lena', PASSWORD);
    await person.waitForURL(`${env.server.url}/ui/account`, { timeout: 15_000 });
    // an active user under no lock has nothing to unlock: the API's "not locked"
    const again = await api('UnlockUser', ['POST', `/management/v1/users/${id}/_unlock`], {});
    expect(again).toMatchObject({ ok: false, status: 400 });
    await person.context().close();
    await page.context().close();
  });

  it("a session names the org's app and its project, the client id below, each linked", async () => {
    const userId = await addHuman('sol');
    const { projectId, appId, clientId } = await addProjectAndApp('Harbor', 'Harbor Portal');
    const { url } = await pkceAuthorization(env.server, clientId);
    await new Browser(env.server).authorize(url, 'sol', PASSWORD);

    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/users/${userId}`);
    const row = cells(page, 'Sessions').first();
    const apps = row.locator('td').nth(2);
    // the app's name and project on one line, the client id on its own line below them
    expect((await apps.textContent())?.replace(/\s+/g, ' ').trim()).toBe(`Harbor Portal · Harbor${clientId}`);
    expect(await apps.locator('small code').textContent()).toBe(clientId);
    expect(await apps.getByRole('link', { name: 'Harbor Portal' }).getAttribute('href')).toContain(
      `/ui/console/projects/${projectId}/apps/${appId}?org=`,
    );
    expect(await apps.getByRole('link', { name: 'Harbor', exact: true }).getAttribute('href')).toContain(
      `/ui/console/projects/${projectId}?org=`,
    );
    await page.setViewportSize(SMALL_SCREEN);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole('region', { name: 'Sessions', exact: true }).scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'console-sessions-390');
    await page.context().close();
  });

  it('every console page fits a 390 px screen without scrolling sideways', async () => {
    const userId = await addHuman('a-person-with-a-rather-long-user-name-that-does-not-fit');
    const { projectId, appId } = await addProjectAndApp('Lighthouse', 'Lighthouse Web');
    const page = await consolePage(env.browser, { viewport: SMALL_SCREEN });
    await signedIn(page, env.server.url, '/ui/console');
    const { org } = await ok<{ org: { id: string } }>(api('GetMyOrg', ['GET', '/management/v1/orgs/me']));
    const paths = [
      '/ui/console',
      '/ui/console/orgs',
      '/ui/console/projects',
      `/ui/console/projects/${projectId}`,
      `/ui/console/projects/${projectId}/apps/${appId}`,
      `/ui/console/projects/${projectId}/apps/new`,
      '/ui/console/users',
      `/ui/console/users/${userId}`,
      '/ui/console/idps',
      '/ui/console/policies',
      '/ui/console/audit',
      `/ui/console/orgs/${org.id}`,
    ];
    const wide: string[] = [];
    for (const path of paths) {
      const overflow = await sidewaysOverflow(page, path);
      if (overflow > 0) wide.push(`${path}: ${overflow}px`);
    }
    expect(wide).toEqual([]);
    await sidewaysOverflow(page, '/ui/console');
    await docsScreenshot(page, 'console-overview-390');
    await sidewaysOverflow(page, '/ui/console/users');
    await docsScreenshot(page, 'console-users-390');
    await page.context().close();
  });
});
