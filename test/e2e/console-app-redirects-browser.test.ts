// An app whose redirect URI is http while development mode is off, in the console in a real browser (Chromium, 1280
// and 390 px wide): the new-app form refuses it with the reason next to the redirect URI field and offers development
// mode, explained; the offer creates the app; an app saved so through the API shows the problem on its page, and its
// settings form refuses the same again. Screenshots go to test-output/screenshots/.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { screenshot } from '../helpers/browser.ts';
import { consolePage, signedIn, useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';

const HTTP_CALLBACK = 'http://localhost:3000/callback';
const WIDTHS = [1280, 390] as const;

describe('console: an http redirect URI outside development mode', () => {
  const env = useConsoleTestEnv();

  const api = (method: string, rest: [string, string], body: Record<string, unknown>) =>
    callRest(env.server.url, { service: ManagementService, method, rest, body }, { token: env.adminToken });
  const addProject = async (name: string) =>
    okJson<{ id: string }>(await api('AddProject', ['POST', '/management/v1/projects'], { name })).id;
  const listApps = async (projectId: string) =>
    okJson<{ result?: { id: string; name: string; oidcConfig?: { devMode?: boolean } }[] }>(
      await api('ListApps', ['POST', `/management/v1/projects/${projectId}/apps/_search`], {}),
    ).result ?? [];

  /** Screenshots of the page as it is, at each width, and that nothing overflows sideways on the phone. */
  async function shots(page: Page, name: string) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `${name}-${width}`);
    }
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('the new-app form refuses it, says why next to the field and offers development mode', async () => {
    const projectId = await addProject('Local shop');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/new?type=web`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop on my laptop');
    await page.getByLabel('Redirect URIs', { exact: true }).fill(HTTP_CALLBACK);
    await page.getByRole('button', { name: 'Create app' }).click();

    expect(await page.locator('#form-error').textContent()).toBe(
      'The app was not created: sign-in would refuse its redirect URIs as they are (see below).',
    );
    const field = page.getByLabel('Redirect URIs', { exact: true });
    expect(await field.inputValue()).toBe(HTTP_CALLBACK);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#redirectUris-problem').textContent()).toBe(
      `Sign-in accepts an http address only from an app in development mode: ${HTTP_CALLBACK}. Use https, or turn ` +
        'on development mode while the app runs on your own machine.',
    );
    expect(await page.locator('#devMode-help').textContent()).toMatch(/^For building an app on your own machine/);
    expect(await listApps(projectId)).toEqual([]);
    await shots(page, 'console-app-http-refused');

    await page.getByRole('button', { name: 'Create in development mode' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Shop on my laptop is ready');
    const [app] = await listApps(projectId);
    expect(app?.oidcConfig?.devMode).toBe(true);
    // its page: in development mode, no problem to report
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    expect(await page.locator('#form-error').count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: /^Development mode/ }).isChecked()).toBe(true);
    await page.context().close();
  });

  it('an app saved so through the API shows the problem on its page, and saving it so again is refused', async () => {
    const projectId = await addProject('API shop');
    const { appId } = okJson<{ appId: string; noneCompliant?: boolean }>(
      await api('AddOIDCApp', ['POST', `/management/v1/projects/${projectId}/apps/oidc`], {
        name: 'Made by the API',
        redirectUris: [HTTP_CALLBACK],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      }),
    );
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/${appId}`);
    expect(await page.locator('#form-error').textContent()).toBe(
      'This app cannot sign anyone in yet: sign-in refuses its redirect URIs as they are (see below).',
    );
    expect(await page.locator('#redirectUris-problem').textContent()).toContain(HTTP_CALLBACK);
    await shots(page, 'console-app-http-not-usable');

    // saving it unchanged is refused with the reason; the offer saves it in development mode
    await page.getByRole('checkbox', { name: 'JWT access tokens' }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect(await page.locator('#form-error').textContent()).toBe(
      'The settings were not saved: sign-in would refuse the redirect URIs as they are (see below).',
    );
    expect(await page.getByRole('checkbox', { name: 'JWT access tokens' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save in development mode' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    expect(await page.locator('#form-error').count()).toBe(0);
    const [app] = await listApps(projectId);
    expect(app?.oidcConfig).toMatchObject({ devMode: true, accessTokenType: 'OIDC_TOKEN_TYPE_JWT' });
    await page.context().close();
  });

  it('speaks German to a German browser', async () => {
    const projectId = await addProject('Laden');
    const page = await consolePage(env.browser, { locale: 'de-DE' });
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/new?type=web`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Laden lokal');
    await page.getByLabel('Weiterleitungs-URIs', { exact: true }).fill(HTTP_CALLBACK);
    await page.getByRole('button', { name: 'App erstellen' }).click();
    expect(await page.locator('#redirectUris-problem').textContent()).toMatch(
      /^Die Anmeldung akzeptiert eine http-Adresse nur von einer App im Entwicklungsmodus/,
    );
    await shots(page, 'console-app-http-refused-de');
    await page.context().close();
  });
});
