// The console's "Identity providers" and "Policies" pages in a real browser (Chromium): the admin creates a JWT IdP by
// its labelled fields, edits it, offers it at sign-in and stops, and removes it after confirming (each checked through
// the admin API); changes the password complexity, the lockout and the login policy (checked through the API; a refused
// or unchanged save shows the API's message); an org's owner reads the policies without a form; a cross-site post
// changes nothing; the pages work with JavaScript off; axe-core finds no serious or critical violation.
import { describe, expect, it } from 'vitest';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { axeViolations, consolePage, docsScreenshot, signedIn, useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';

interface Idp {
  id: string;
  name: string;
  state: string;
  jwtConfig?: Record<string, string>;
}

describe('console identity providers and policies in a browser', () => {
  const env = useConsoleTestEnv();

  const admin = async <T = Record<string, unknown>>(
    method: string,
    rest: [string, string],
    body?: Record<string, unknown>,
  ) =>
    okJson<T>(await callRest(env.server.url, { service: AdminService, method, rest, body }, { token: env.adminToken }));
  const idps = async () =>
    (await admin<{ result?: Idp[] }>('ListIDPs', ['POST', '/admin/v1/idps/_search'], {})).result ?? [];
  const offered = async () =>
    (
      await admin<{ result?: { idpId: string }[] }>(
        'ListLoginPolicyIDPs',
        ['POST', '/admin/v1/policies/login/idps/_search'],
        {},
      )
    ).result?.map((r) => r.idpId) ?? [];
  const policy = async (method: string, path: string) =>
    (await admin<{ policy: Record<string, unknown> }>(method, ['GET', path])).policy;
  const addIdp = async (name: string) =>
    (
      await admin<{ idpId: string }>('AddJWTIDP', ['POST', '/admin/v1/idps/jwt'], {
        name,
        issuer: 'https://partner.example.com',
        jwtEndpoint: 'https://partner.example.com/jwt',
        keysEndpoint: 'https://partner.example.com/keys',
        headerName: 'x-partner-jwt',
      })
    ).idpId;
  /** A fresh browser signed in (as the admin unless told) on a console page. */
  const openConsole = async (path: string, options: BrowserContextOptions = {}, who: string[] = []) => {
    const page = await consolePage(env.browser, options);
    await signedIn(page, env.server.url, path, ...who);
    return page;
  };
  const notice = (page: Page) => page.locator('#notice').textContent();
  const formError = (page: Page) => page.locator('#form-error').textContent();

  it('creates a JWT IdP, edits it, offers it at sign-in and stops, and removes it after confirming', async () => {
    const page = await openConsole('/ui/console/idps');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Identity providers');
    const form = page.getByRole('region', { name: 'New JWT identity provider' });
    await form.getByLabel('Name', { exact: true }).fill('Partner SSO');
    await form.getByLabel('Issuer').fill('https://partner.example.com');
    await form.getByLabel('JWT endpoint').fill('https://partner.example.com/jwt');
    await form.getByLabel('Keys endpoint').fill('https://partner.example.com/keys');
    await form.getByLabel('Header name').fill('x-partner-jwt');
    await form.getByLabel('Register new users automatically').check();
    await page.getByRole('button', { name: 'Create identity provider' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Partner SSO');
    expect(await notice(page)).toBe('Saved.');
    const [created] = (await idps()).filter((i) => i.name === 'Partner SSO');
    expect(created?.jwtConfig).toEqual({
      issuer: 'https://partner.example.com',
      jwtEndpoint: 'https://partner.example.com/jwt',
      keysEndpoint: 'https://partner.example.com/keys',
      headerName: 'x-partner-jwt',
    });
    expect(created).toMatchObject({ autoRegister: true, state: 'IDP_STATE_ACTIVE' });

    // edit the settings; saving the JWT configuration unchanged shows the API's "not changed" (400)
    await page.getByRole('region', { name: 'Settings' }).getByLabel('Name', { exact: true }).fill('Partner login');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect((await idps()).find((i) => i.id === created!.id)?.name).toBe('Partner login');
    const unchanged = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save JWT configuration' }).click();
    expect((await unchanged).status()).toBe(400);
    expect(await formError(page)).toBe('IDP JWT configuration not changed (INSTANCE-3n9gg)');
    await page.getByLabel('Keys endpoint').fill('https://partner.example.com/jwks');
    await page.getByRole('button', { name: 'Save JWT configuration' }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect((await idps()).find((i) => i.id === created!.id)?.jwtConfig?.keysEndpoint).toBe(
      'https://partner.example.com/jwks',
    );

    // offered at sign-in (the login policy's list), then not
    expect(await offered()).not.toContain(created!.id);
    await page.getByRole('button', { name: 'Offer at sign-in' }).click();
    await expect.poll(() => offered()).toContain(created!.id);
    await page.getByRole('button', { name: 'Stop offering at sign-in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Offer at sign-in' }).count()).toBe(1);
    expect(await offered()).not.toContain(created!.id);
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(async () => (await idps()).find((i) => i.id === created!.id)?.state).toBe('IDP_STATE_INACTIVE');
    await docsScreenshot(page, 'console-idp');

    // the script asks first: declined, nothing happens; accepted, it is gone
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Remove' }).click();
    expect((await idps()).some((i) => i.id === created!.id)).toBe(true);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/console/idps');
    expect((await idps()).some((i) => i.id === created!.id)).toBe(false);
    await page.context().close();
  });

  it("changes password complexity, lockout and login policy; a refused or unchanged save shows the API's message", async () => {
    const page = await openConsole('/ui/console/policies');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Policies');
    const password = page.getByRole('region', { name: 'Password complexity' });
    expect(await password.getByLabel('Minimum length').inputValue()).toBe('8');
    await password.getByLabel('Minimum length').fill('12');
    await password.getByLabel('Requires a number').check();
    await password.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect(await policy('GetPasswordComplexityPolicy', '/admin/v1/policies/password/complexity')).toMatchObject({
      minLength: '12',
      hasNumber: true,
    });
    // below the floor of 8 characters (the browser's own check of min= left out): the API's message naming the
    // field, the posted value kept
    await password.locator('form').evaluate((form: HTMLFormElement) => form.setAttribute('novalidate', ''));
    await password.getByLabel('Minimum length').fill('4');
    const refused = page.waitForResponse((r) => r.request().method() === 'POST');
    await password.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).toBe(400);
    expect(await formError(page)).toMatch(/UpdatePasswordComplexityPolicyRequest\.MinLength/);
    expect(await password.getByLabel('Minimum length').inputValue()).toBe('4');
    expect((await policy('GetPasswordComplexityPolicy', '/admin/v1/policies/password/complexity')).minLength).toBe(
      '12',
    );

    const lockout = page.getByRole('region', { name: 'Lockout' });
    expect(await lockout.getByLabel('Maximum failed attempts').inputValue()).toBe('5');
    await lockout.getByLabel('Maximum failed attempts').fill('3');
    await lockout.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect(await policy('GetLockoutPolicy', '/admin/v1/policies/lockout')).toMatchObject({
      maxPasswordAttempts: '3',
    });
    await lockout.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => formError(page)).toBe('Lockout policy not changed (INSTANCE-0psjF)');

    const login = page.getByRole('region', { name: 'Login policy' });
    expect(await login.getByLabel('Allow registration').isChecked()).toBe(true);
    await login.getByLabel('Allow registration').uncheck();
    await login.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect(await policy('GetLoginPolicy', '/admin/v1/policies/login')).toMatchObject({ allowExternalIdp: true });
    expect((await policy('GetLoginPolicy', '/admin/v1/policies/login')).allowRegister).toBeUndefined(); // false
    await login.getByLabel('Allow registration').check();
    await login.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await policy('GetLoginPolicy', '/admin/v1/policies/login')).allowRegister)
      .toBe(true);
    await docsScreenshot(page, 'console-policies');
    await login.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => formError(page)).toBe('Login policy not changed (INSTANCE-5M9vdd)');
    await page.context().close();
  });

  it('works with JavaScript off: a policy form saves, a removal asks on its own page', async () => {
    const idpId = await addIdp('NoScript IdP');
    const page = await openConsole('/ui/console/policies', { javaScriptEnabled: false });
    const lockout = page.getByRole('region', { name: 'Lockout' });
    await lockout.getByLabel('Maximum failed attempts').fill('9');
    await lockout.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => notice(page)).toBe('Saved.');
    expect((await policy('GetLockoutPolicy', '/admin/v1/policies/lockout')).maxPasswordAttempts).toBe('9');
    await page.getByRole('link', { name: 'Identity providers' }).click();
    await page.getByRole('link', { name: 'NoScript IdP' }).click();
    await page.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Remove NoScript IdP?');
    expect((await idps()).some((i) => i.id === idpId)).toBe(true);
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/console/idps');
    expect((await idps()).some((i) => i.id === idpId)).toBe(false);
    await page.context().close();
  });

  it("an org's owner reads the instance's policies without a form and sees no identity providers", async () => {
    await admin('SetUpOrg', ['POST', '/admin/v1/orgs/_setup'], {
      org: { name: 'Owned Org' },
      human: {
        userName: 'org-owner',
        profile: { firstName: 'Org', lastName: 'Owner' },
        email: { email: 'org-owner@example.com', isEmailVerified: true },
        password: 'Org-Owner-Password-1',
      },
    });
    const page = await openConsole('/ui/console/policies', {}, ['org-owner', 'Org-Owner-Password-1']);
    expect(await page.getByText("These are the instance's policies").count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    const minLength = page.getByRole('region', { name: 'Password complexity' }).getByLabel('Minimum length');
    expect(await minLength.isDisabled()).toBe(true);
    expect(await minLength.inputValue()).toBe(
      (await policy('GetPasswordComplexityPolicy', '/admin/v1/policies/password/complexity')).minLength,
    );
    // a post of the admin's form is the API's refusal (shown as "not found"), and changes nothing
    const before = await policy('GetLockoutPolicy', '/admin/v1/policies/lockout');
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const answer = await page.request.post(`${env.server.url}/ui/console/policies/lockout`, {
      form: { csrf, maxPasswordAttempts: '42' },
      headers: { origin: env.server.url, 'sec-fetch-site': 'same-origin' },
    });
    expect(answer.status()).toBe(404);
    expect(await policy('GetLockoutPolicy', '/admin/v1/policies/lockout')).toEqual(before);
    await page.getByRole('link', { name: 'Identity providers' }).click();
    expect(await page.getByText('Identity providers belong to the instance').count()).toBe(1);
    expect(await page.getByRole('main').getByRole('table').count()).toBe(0);
    await page.context().close();
  });

  it('a policy form posted from another origin changes nothing and is not a 5xx', async () => {
    const page = await openConsole('/ui/console/policies');
    const before = await policy('GetLockoutPolicy', '/admin/v1/policies/lockout');
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    await page.goto('about:blank');
    await page.setContent(
      `<form method="post" action="${env.server.url}/ui/console/policies/lockout">` +
        `<input name="maxPasswordAttempts" value="999"><input name="csrf" value="${csrf}"></form>`,
    );
    const [response] = await Promise.all([page.waitForNavigation(), page.evaluate(() => document.forms[0]!.submit())]);
    expect(response?.status()).toBe(403);
    expect(await policy('GetLockoutPolicy', '/admin/v1/policies/lockout')).toEqual(before);
    await page.context().close();
  });

  it('axe-core finds no serious or critical violation on the identity providers and policies pages', async () => {
    const idpId = await addIdp('Checked IdP');
    const page = await openConsole('/ui/console/idps', { bypassCSP: true });
    const found: string[] = [];
    for (const path of ['/ui/console/idps', `/ui/console/idps/${idpId}`, '/ui/console/policies']) {
      await page.goto(`${env.server.url}${path}`);
      found.push(...(await axeViolations(page)).map((id) => `${path}: ${id}`));
    }
    expect(found).toEqual([]);
    await page.context().close();
  });
});
