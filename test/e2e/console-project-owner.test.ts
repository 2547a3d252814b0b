// Who sees what, for a PROJECT_OWNER in a real browser (Chromium): the console shows "Projects" alone and only the
// person's projects; the org's other pages and other projects answer the "not found" page with no data. On its project
// it grants the project to another org named by its domain (AddProjectGrant, checked through ListProjectGrants),
// deactivates and reactivates the grant, and removes it on the confirmation page without script.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { signIn } from '../helpers/browser.ts';
import { useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { defaultOrgId } from '../helpers/oidc.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';

const PASSWORD = 'Project-Owner-Password-1';

describe('the console for a PROJECT_OWNER', () => {
  const env = useConsoleTestEnv();
  let owned: string;
  let other: string;
  let partner: { id: string; domain: string };

  const api = <T = Record<string, unknown>>(
    service: typeof ManagementService | typeof AdminService,
    method: string,
    rest: [string, string],
    body?: Record<string, unknown>,
  ) => callRest(env.server.url, { service, method, rest, body }, { token: env.adminToken }).then((o) => okJson<T>(o));
  const addProject = async (name: string) =>
    (await api<{ id: string }>(ManagementService, 'AddProject', ['POST', '/management/v1/projects'], { name })).id;
  const projectGrants = async () =>
    (
      await api<{ result?: { grantedOrgId: string; grantedRoleKeys: string[]; state: string }[] }>(
        ManagementService,
        'ListProjectGrants',
        ['POST', `/management/v1/projects/${owned}/grants/_search`],
        {},
      )
    ).result ?? [];

  beforeAll(async () => {
    owned = await addProject('Owned app');
    other = await addProject('Secret project');
    for (const roleKey of ['viewer', 'editor'])
      await api(ManagementService, 'AddProjectRole', ['POST', `/management/v1/projects/${owned}/roles`], {
        roleKey,
        displayName: `Role ${roleKey}`,
      });
    const input = registrationSchema.parse({
      firstName: 'Pat',
      lastName: 'Owner',
      email: 'pat@example.com',
      userName: 'pat',
      password: PASSWORD,
    });
    const { userId } = await registerHuman(env.server.db, await defaultOrgId(env.server), input, 'en');
    await api(ManagementService, 'AddProjectMember', ['POST', `/management/v1/projects/${owned}/members`], {
      userId,
      roles: ['PROJECT_OWNER'],
    });
    const { orgId } = await api<{ orgId: string }>(AdminService, 'SetUpOrg', ['POST', '/admin/v1/orgs/_setup'], {
      org: { name: 'Partner' },
      human: { userName: 'partner-owner', profile: { firstName: 'P', lastName: 'O' }, email: { email: 'p@x.test' } },
    });
    const { org } = await api<{ org: { primaryDomain: string } }>(AdminService, 'GetOrgByID', [
      'GET',
      `/admin/v1/orgs/${orgId}`,
    ]);
    partner = { id: orgId, domain: org.primaryDomain };
  });

  async function signedIn(javaScriptEnabled = true): Promise<Page> {
    const page = await (await env.browser.newContext({ locale: 'en-US', javaScriptEnabled })).newPage();
    await page.goto(`${env.server.url}/ui/console`);
    await signIn(page, 'pat', PASSWORD);
    // the start page of a project owner is its projects
    await page.waitForURL((url) => url.pathname === '/ui/console/projects', { timeout: 15_000 });
    return page;
  }

  it('sees "Projects" alone, only its project, and the not-found page for everything else', async () => {
    const page = await signedIn();
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual(['Projects']);
    expect(await page.getByRole('main').getByRole('link').allTextContents()).toEqual(['Owned app']);
    expect(await page.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    for (const path of [
      '/ui/console/users',
      '/ui/console/orgs',
      '/ui/console/audit',
      `/ui/console/projects/${other}`,
    ]) {
      const response = await page.goto(`${env.server.url}${path}`);
      expect(response?.status()).toBe(404);
      const html = await page.content();
      for (const secret of ['Secret project', 'admin', 'partner-owner']) expect(html).not.toContain(secret);
    }
    // a post to an org page, with the page's own CSRF token, changes nothing and shows nothing
    await page.goto(`${env.server.url}/ui/console/projects`);
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const created = await page.request.post(`${env.server.url}/ui/console/orgs`, {
      form: { csrf, name: 'Taken', userName: 'taker', email: 'x@x.test', firstName: 'X', lastName: 'X' },
    });
    expect(created.status()).toBe(404);
    const orgs = await api<{ result: { name: string }[] }>(AdminService, 'ListOrgs', [
      'POST',
      '/admin/v1/orgs/_search',
    ]);
    expect(orgs.result.map((o) => o.name)).not.toContain('Taken');
    await page.getByRole('link', { name: 'Owned app' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Owned app');
    await page.context().close();
  });

  it('grants its project to another org by domain, (de|re)activates the grant and removes it without script', async () => {
    const page = await signedIn(false);
    await page.getByRole('link', { name: 'Owned app' }).click();
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Project grants' }).click();
    const grants = page.getByRole('region', { name: 'Project grants' });
    await grants.getByLabel('Organization').fill('no-such-org.example');
    await grants.getByRole('checkbox', { name: 'Role editor' }).check();
    await grants.getByRole('button', { name: 'Grant project' }).click();
    expect(await page.locator('#form-error').textContent()).toMatch(/no organization with this ID or domain/);
    expect(await projectGrants()).toEqual([]);

    await grants.getByLabel('Organization').fill(partner.domain);
    await grants.getByRole('checkbox', { name: 'Role editor' }).check();
    await grants.getByRole('button', { name: 'Grant project' }).click();
    expect(await page.locator('#notice').textContent()).toBe('Saved.');
    expect(await projectGrants()).toEqual([
      expect.objectContaining({
        grantedOrgId: partner.id,
        grantedRoleKeys: ['editor'],
        state: 'PROJECT_GRANT_STATE_ACTIVE',
      }),
    ]);
    expect(await grants.getByRole('row', { name: /^Partner/ }).textContent()).toContain('editor');

    await grants.getByRole('button', { name: 'Deactivate' }).click();
    expect((await projectGrants())[0]?.state).toBe('PROJECT_GRANT_STATE_INACTIVE');
    await grants.getByRole('button', { name: 'Reactivate' }).click();
    expect((await projectGrants())[0]?.state).toBe('PROJECT_GRANT_STATE_ACTIVE');

    await grants.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Remove Partner?');
    expect(await projectGrants()).toHaveLength(1);
    await page.getByRole('button', { name: 'Remove for good' }).click();
    await page.waitForURL((url) => url.pathname === `/ui/console/projects/${owned}/project-grants`);
    expect(await projectGrants()).toEqual([]);
    await page.context().close();
  });
});
