// Issue 22's audit page in a real browser (Chromium): the admin reads the org's event log newest first, narrows it
// to one object and to one editor by labelled fields, and pages back through it without a gap or a repeat; the
// rows are those AdminService.ListEvents answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { launchBrowser, signIn } from '../helpers/browser.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('console audit page in a browser (issue 22)', () => {
  let server: TestServer;
  let adminToken: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ server, adminToken } = await startServerWithAdminKey());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const addProject = async (name: string) =>
    okJson<{ id: string }>(
      await callRest(
        server.url,
        { service: ManagementService, method: 'AddProject', rest: ['POST', '/management/v1/projects'], body: { name } },
        { token: adminToken },
      ),
    ).id;

  const cells = (page: Page, column: number) =>
    page.locator(`main table tbody tr td:nth-child(${column})`).allTextContents();

  it('lists the events newest first, by object and by editor, one page after the other', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(await addProject(`Audited ${i}`));
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(`${server.url}/ui/console/audit`);
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.waitForURL((url) => url.pathname === '/ui/console/audit', { timeout: 15_000 });
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
