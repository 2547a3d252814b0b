// A newcomer's first hour in the console, in a real browser (Chromium, 1280 and 390 px wide): a project's pages are an
// overview and tabs, each at its own URL; an app is made by kind in two steps, and each kind gets its defaults (read
// back through the API); the app's page shows the issuer, the discovery URL and the endpoints as the server's
// discovery document has them; roles added and removed on the roles tab are there, and gone, in the API. axe-core
// finds no serious or critical issue on any of these pages. Screenshots go to docs/screenshots/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { fromJson } from '@bufbuild/protobuf';
import {
  APIAuthMethodType,
  OIDCAppType,
  OIDCAuthMethodType,
  OIDCGrantType,
  OIDCResponseType,
} from '@zitadel/proto/zitadel/app_pb.js';
import { GetAppByIDResponseSchema, ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { axeViolations, consolePage, docsScreenshot, signedIn, useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';

const WIDTHS = [1280, 390] as const;
const TABS = [
  ['', 'Overview'],
  ['/apps', 'Apps'],
  ['/roles', 'Roles'],
  ['/grants', 'User grants'],
  ['/project-grants', 'Project grants'],
  ['/members', 'Members'],
  ['/settings', 'Settings'],
] as const;

/** What each kind is made with through the guided path, and what the API must then say about it. */
const KINDS = [
  {
    card: 'Web app',
    name: 'Shop web',
    redirectUris: ['https://shop.example.com/callback'],
    expected: {
      appType: OIDCAppType.OIDC_APP_TYPE_WEB,
      authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC,
    },
  },
  {
    card: 'Single-page app',
    name: 'Shop SPA',
    redirectUris: ['https://spa.example.com/callback'],
    expected: {
      appType: OIDCAppType.OIDC_APP_TYPE_USER_AGENT,
      authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE,
    },
  },
  {
    card: 'Native app',
    name: 'Shop mobile',
    // a custom scheme and a loopback address: a native app needs no development mode for them (RFC 8252 §7)
    redirectUris: ['com.example.shop:/callback', 'http://127.0.0.1/callback'],
    expected: {
      appType: OIDCAppType.OIDC_APP_TYPE_NATIVE,
      authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE,
    },
  },
] as const;

describe('console: a project, its apps by kind, and how to connect them', () => {
  const env = useConsoleTestEnv();

  const api = (method: string, rest: [string, string], body?: Record<string, unknown>) =>
    callRest(env.server.url, { service: ManagementService, method, rest, body }, { token: env.adminToken });
  const addProject = async (name: string) =>
    okJson<{ id: string }>(await api('AddProject', ['POST', '/management/v1/projects'], { name })).id;
  const appsOf = async (projectId: string) =>
    okJson<{ result?: { id: string; name: string }[] }>(
      await api('ListApps', ['POST', `/management/v1/projects/${projectId}/apps/_search`], {}),
    ).result ?? [];
  const appOf = async (projectId: string, name: string) => {
    const listed = (await appsOf(projectId)).find((a) => a.name === name);
    const json = okJson(await api('GetAppByID', ['GET', `/management/v1/projects/${projectId}/apps/${listed!.id}`]));
    return { id: listed!.id, app: fromJson(GetAppByIDResponseSchema, json as never).app! };
  };
  const roleKeys = async (projectId: string) =>
    (
      okJson<{ result?: { key: string }[] }>(
        await api('ListProjectRoles', ['POST', `/management/v1/projects/${projectId}/roles/_search`], {}),
      ).result ?? []
    ).map((r) => r.key);

  /** docs/screenshots/<name>.png at 1280 px and <name>-390.png at 390 px; nothing overflows sideways on the phone. */
  async function shots(page: Page, name: string) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await docsScreenshot(page, width === 1280 ? name : `${name}-${width}`);
    }
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('makes one app of each kind through the guided path, each with its kind’s defaults', async () => {
    const projectId = await addProject('Shop');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps`);
    for (const [index, kind] of KINDS.entries()) {
      await page.goto(`${env.server.url}/ui/console/projects/${projectId}/apps`);
      await page.getByRole('link', { name: 'New app' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('New app: what are you connecting?');
      if (index === 0) await shots(page, 'console-app-kinds');
      await page.getByRole('link', { name: new RegExp(`^${kind.card}`) }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`New app: ${kind.card}`);
      // only the fields of an OIDC app: no choice of an API's authentication
      expect(await page.getByRole('radio').count()).toBe(0);
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(kind.name);
      await page.getByLabel('Redirect URIs', { exact: true }).fill(kind.redirectUris.join('\n'));
      if (index === 0) await shots(page, 'console-app-new');
      await page.getByRole('button', { name: 'Create app' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`${kind.name} is ready`);
      // a secret only for the app that can keep one
      const secrets = await page.locator('#client-secret').count();
      expect([kind.card, secrets]).toEqual([
        kind.card,
        kind.expected.authMethodType === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC ? 1 : 0,
      ]);

      const { app } = await appOf(projectId, kind.name);
      expect(app.config.case).toBe('oidcConfig');
      const oidc = app.config.value as Extract<typeof app.config, { case: 'oidcConfig' }>['value'];
      expect({
        appType: oidc.appType,
        authMethodType: oidc.authMethodType,
        grantTypes: oidc.grantTypes,
        responseTypes: oidc.responseTypes,
        redirectUris: oidc.redirectUris,
        devMode: oidc.devMode,
        noneCompliant: oidc.noneCompliant,
      }).toEqual({
        ...kind.expected,
        grantTypes: [OIDCGrantType.OIDC_GRANT_TYPE_AUTHORIZATION_CODE, OIDCGrantType.OIDC_GRANT_TYPE_REFRESH_TOKEN],
        responseTypes: [OIDCResponseType.OIDC_RESPONSE_TYPE_CODE],
        redirectUris: kind.redirectUris,
        devMode: false,
        noneCompliant: false,
      });
    }

    // an API: no redirect URIs, its authentication a choice (a client secret unless told)
    await page.goto(`${env.server.url}/ui/console/projects/${projectId}/apps/new`);
    await page.getByRole('link', { name: /^API/ }).click();
    expect(await page.getByLabel('Redirect URIs', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('radio', { name: /client_secret_basic/ }).isChecked()).toBe(true);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Shop API');
    await page.getByRole('radio', { name: /private_key_jwt/ }).check();
    await page.getByRole('button', { name: 'Create app' }).click();
    expect(await page.locator('#client-secret').count()).toBe(0);
    const { app: apiApp } = await appOf(projectId, 'Shop API');
    expect(apiApp.config.case).toBe('apiConfig');
    expect((apiApp.config.value as { authMethodType: number }).authMethodType).toBe(
      APIAuthMethodType.API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT,
    );
    // its page offers a key instead of a secret; the key file is the private key of a key the API then lists
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    expect(await page.getByRole('button', { name: 'Regenerate secret' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add key' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByText('Download as a file').click()]);
    const keyFile = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Record<string, string>;
    expect(keyFile.key).toMatch(/^-----BEGIN (RSA )?PRIVATE KEY-----/);
    const keys = okJson<{ result?: { id: string }[] }>(
      await api('ListAppKeys', ['POST', `/management/v1/projects/${projectId}/apps/${apiApp.id}/keys/_search`], {}),
    );
    expect(keys.result?.map((k) => k.id)).toEqual([keyFile.keyId]);

    // the apps tab lists all four, "New app" on top
    await page.goto(`${env.server.url}/ui/console/projects/${projectId}/apps`);
    expect(await page.getByRole('main').getByRole('link').nth(TABS.length).textContent()).toBe('New app');
    expect(await page.getByRole('row').count()).toBe(5);
    await shots(page, 'console-project-apps');
    await page.context().close();
  });

  it('shows on the app’s page the issuer, discovery URL and endpoints of the server’s discovery document', async () => {
    const projectId = await addProject('Connect');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/new?type=web`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Portal');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://portal.example.com/callback');
    await page.getByRole('button', { name: 'Create app' }).click();
    const secret = await page.locator('#client-secret').inputValue();
    const clientId = await page.locator('#client-id').inputValue();
    await page.getByRole('link', { name: 'Continue to the app' }).click();

    const discovery = (await (await fetch(`${env.server.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    const shown = (name: string) => page.locator(`#connect-${name}`).textContent();
    expect(await shown('issuer')).toBe(discovery.issuer);
    expect(await page.locator('#connect-discovery').getAttribute('href')).toBe(
      `${discovery.issuer}/.well-known/openid-configuration`,
    );
    for (const name of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'end_session_endpoint'])
      expect([name, await shown(name)]).toEqual([name, discovery[name]]);
    expect(await page.locator('#client-id').textContent()).toBe(clientId);
    expect(await page.locator('#connect-redirect-uris').textContent()).toBe('https://portal.example.com/callback');
    const block = await page.locator('#connect-config').inputValue();
    expect(block).toContain(`ISSUER=${discovery.issuer}\nCLIENT_ID=${clientId}\n`);
    expect(block).toContain('REDIRECT_URI=https://portal.example.com/callback');
    expect(block).toMatch(/^# CLIENT_SECRET was shown once/);
    expect(await page.content()).not.toContain(secret);
    await expect.poll(() => page.getByRole('button', { name: 'Copy' }).count()).toBe(1);
    await shots(page, 'console-app-connect');

    // an API's page: the introspection endpoint it calls, no sign-in endpoints
    await page.goto(`${env.server.url}/ui/console/projects/${projectId}/apps/new?type=api`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Orders API');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('link', { name: 'Continue to the app' }).click();
    expect(await shown('introspection_endpoint')).toBe(discovery.introspection_endpoint);
    expect(await page.locator('#connect-authorization_endpoint').count()).toBe(0);
    expect(await page.locator('#connect-config').inputValue()).toContain(
      `INTROSPECTION_ENDPOINT=${discovery.introspection_endpoint}`,
    );
    await page.context().close();
  });

  it('adds and removes roles on the roles tab, as the API then has them', async () => {
    const projectId = await addProject('Library');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/roles`);
    for (const key of ['editor', 'viewer']) {
      await page.getByLabel('Key', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Add role' }).click();
      await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    }
    expect(new URL(page.url()).pathname).toBe(`/ui/console/projects/${projectId}/roles`);
    expect((await roleKeys(projectId)).sort()).toEqual(['editor', 'viewer']);
    await shots(page, 'console-project-roles');
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([
      page.waitForEvent('load'),
      page
        .getByRole('row', { name: /^viewer/ })
        .getByRole('button', { name: 'Remove' })
        .click(),
    ]);
    expect(await page.getByRole('row', { name: /^viewer/ }).count()).toBe(0);
    expect(await roleKeys(projectId)).toEqual(['editor']);
    await page.context().close();
  });

  it('reaches every tab by its URL, marks it current, and axe-core finds nothing serious', async () => {
    const projectId = await addProject('Tabs');
    const [kind] = KINDS;
    const page = await consolePage(env.browser, { bypassCSP: true });
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/new?type=web`);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(kind.name);
    await page.getByLabel('Redirect URIs', { exact: true }).fill(kind.redirectUris[0]);
    await page.getByRole('button', { name: 'Create app' }).click();
    const [app] = await appsOf(projectId);
    const base = `/ui/console/projects/${projectId}`;
    for (const [path, label] of TABS) {
      const response = await page.goto(`${env.server.url}${base}${path}`);
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tabs');
      const current = page.getByRole('navigation', { name: 'Project' }).locator('[aria-current=page]');
      expect([path, await current.textContent()]).toEqual([path, label]);
      expect((await axeViolations(page)).map((id) => `${path}: ${id}`)).toEqual([]);
    }
    for (const path of ['/apps/new', '/apps/new?type=web', '/apps/new?type=native', '/apps/new?type=api']) {
      await page.goto(`${env.server.url}${base}${path}`);
      expect((await axeViolations(page)).map((id) => `${path}: ${id}`)).toEqual([]);
    }
    await page.goto(`${env.server.url}${base}/apps/${app!.id}`);
    expect(await axeViolations(page)).toEqual([]);
    // the tabs are links: from the overview to the roles and back
    await page.goto(`${env.server.url}${base}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Roles' }).click();
    expect(new URL(page.url()).pathname).toBe(`${base}/roles`);
    await page.context().close();
  });

  it('answers a posted kind or authentication it does not know with 400 naming the field, and makes nothing', async () => {
    const projectId = await addProject('Refusals');
    const page = await consolePage(env.browser);
    await signedIn(page, env.server.url, `/ui/console/projects/${projectId}/apps/new?type=api`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const post = (form: Record<string, string>) =>
      page.request.post(`${env.server.url}/ui/console/projects/${projectId}/apps`, { form: { csrf, ...form } });
    const badKind = await post({ kind: 'mainframe', name: 'X' });
    expect(badKind.status()).toBe(400);
    expect(await badKind.text()).toContain('Kind: choose one of the kinds below.');
    const badMethod = await post({ kind: 'api', name: 'X', authMethod: 'client_secret_post' });
    expect(badMethod.status()).toBe(400);
    expect(await badMethod.text()).toContain('Client authentication: choose a client secret or a key pair.');
    expect(await appsOf(projectId)).toEqual([]);
    await page.context().close();
  });
});
