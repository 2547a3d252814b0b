// The console's users and audit pages in a real browser (Chromium): the admin finds users by one search box over user
// name, e-mail and name (ListUsers' orQuery); reads the org's event log newest first, narrows it to one object and
// to one editor by labelled fields, and pages back through it without a gap or a repeat (AdminService.ListEvents).
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { consolePage, signedIn as signedInAt, useConsoleTestEnv } from '../helpers/console.ts';
import { callRest, okJson } from '../helpers/management.ts';

describe('console users and audit pages in a browser', () => {
  const env = useConsoleTestEnv();

  const addProject = async (name: string) =>
    okJson<{ id: string }>(
      await callRest(
        env.server.url,
        { service: ManagementService, method: 'AddProject', rest: ['POST', '/management/v1/projects'], body: { name } },
        { token: env.adminToken },
      ),
    ).id;

  const signedIn = async (path: string) => {
    const page = await consolePage(env.browser);
    await signedInAt(page, env.server.url, path);
    return page;
  };

  const cells = (page: Page, column: number) =>
    page.locator(`main table tbody tr td:nth-child(${column})`).allTextContents();

  it('finds users by a prefix of their user name, e-mail or name; creates human and machine users', async () => {
    for (const [userName, email, displayName] of [
      ['grace.hopper', 'ghopper@navy.example', 'Amazing Grace'],
      ['alan', 'turing@bletchley.example', 'Alan Turing'],
    ])
      okJson(
        await callRest(
          env.server.url,
          {
            service: ManagementService,
            method: 'ImportHumanUser',
            rest: ['POST', '/management/v1/users/human/_import'],
            body: { userName, email: { email }, profile: { firstName: 'F', lastName: 'L', displayName } },
          },
          { token: env.adminToken },
        ),
      );
    const page = await signedIn('/ui/console/users');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Users');
    expect(await cells(page, 1)).toEqual(expect.arrayContaining(['admin', 'alan', 'grace.hopper']));
    const search = async (text: string) => {
      await page.getByLabel('Search by user name, e-mail or name').fill(text);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('q') === text);
      return cells(page, 1);
    };
    expect(await search('GHOP')).toEqual(['grace.hopper']); // e-mail
    expect(await search('amazing')).toEqual(['grace.hopper']); // name
    expect(await search('ala')).toEqual(['alan']); // user name
    expect(await search('hopper')).toEqual([]); // a prefix, not anywhere in the text

    // create a human and a machine user; each is the API's (ListUsers); a taken user name is the form again
    const human = page.getByRole('region', { name: 'New user' });
    await human.getByLabel('User name').fill('ada');
    await human.getByLabel('E-mail').fill('ada@analytical.example');
    await human.getByLabel('First name').fill('Ada');
    await human.getByLabel('Last name').fill('Lovelace');
    await human.getByLabel('Password').fill('Analytical-Engine-1843!');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const machine = page.getByRole('region', { name: 'New machine user' });
    await machine.getByLabel('User name').fill('ci-bot');
    await machine.getByLabel('Name', { exact: true }).fill('CI bot');
    await page.getByRole('button', { name: 'Create machine user' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Saved.');
    const listed = okJson<{ result?: { userName: string; human?: object; machine?: object }[] }>(
      await callRest(
        env.server.url,
        { service: ManagementService, method: 'ListUsers', rest: ['POST', '/management/v1/users/_search'], body: {} },
        { token: env.adminToken },
      ),
    );
    const byName = new Map(listed.result?.map((u) => [u.userName, u]));
    expect(byName.get('ada')?.human).toBeDefined();
    expect(byName.get('ci-bot')?.machine).toBeDefined();
    await page.getByRole('region', { name: 'New machine user' }).getByLabel('User name').fill('ada');
    await page.getByRole('region', { name: 'New machine user' }).getByLabel('Name', { exact: true }).fill('Again');
    await page.getByRole('button', { name: 'Create machine user' }).click();
    expect(await page.locator('#form-error').textContent()).toBeTruthy();
  });

  it('lists the events newest first, by object and by editor, one page after the other', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(await addProject(`Audited ${i}`));
    const page = await signedIn('/ui/console/audit');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit');
    const firstPage = await cells(page, 3);
    expect(firstPage).toHaveLength(50);
    expect(firstPage[0]).toBe(`project ${ids.at(-1)}`); // the newest first
    await page.getByRole('link', { name: 'Older events' }).click();
    const secondPage = await cells(page, 3);
    expect(secondPage[0]).toBe(`project ${ids.at(-51)}`); // no gap, no repeat
    expect(secondPage.filter((c) => firstPage.includes(c) && c.startsWith('project'))).toEqual([]);

    await page.getByLabel('Object ID').fill(ids[7]!);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await cells(page, 2)).toEqual(['project.added']);
    const editor = await page.locator('main table tbody tr td:nth-child(4)').textContent();
    expect(editor).toBeTruthy();
    await page.getByLabel('By (user ID)').fill('no-such-editor');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByText('Nothing here yet.').count()).toBe(1);
  });
});
