// The console's refused forms over HTTP against the real server: a new user's password below the policy's length
// is named by the form's label with the rule in the page's language (English, German), not by the operation's field
// path and error ID; the same for a taken project name. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, Browser } from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('console form errors over HTTP', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = new Browser(server);
    const login = await browser.follow(`${server.url}/ui/console/users`);
    await browser.submitLogin(login.url, 'admin', ADMIN_PASSWORD);
  });
  afterAll(async () => server?.stop());

  /** Posts a console form as a browser of `language` would, from its page; the refusal's status and message. */
  async function post(path: string, fields: Record<string, string>, language: string) {
    const headers = { 'accept-language': language };
    const page = await (await browser.request(`${server.url}${path}`, { headers })).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)![1]!;
    const response = await browser.request(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...FORM, ...headers, origin: server.url },
      body: new URLSearchParams({ csrf, ...fields }),
    });
    const body = await response.text();
    return { status: response.status, message: /id="form-error">([^<]*)</.exec(body)?.[1], body };
  }

  const human = { kind: 'human', userName: 'shorty', email: 'shorty@example.com', firstName: 'S', lastName: 'T' };

  it("names a new user's short password by the form's label, in English and German", async () => {
    const english = await post('/ui/console/users', { ...human, password: 'short' }, 'en');
    expect(english.status).toBe(400);
    expect(english.message).toBe('Password must be between 8 and 1024 characters long.');
    expect(english.body).not.toMatch(/AddHumanUserRequest|COMMA-HuJf6/);
    const german = await post('/ui/console/users', { ...human, password: 'short' }, 'de-DE,de;q=0.9');
    expect(german.message).toBe('Passwort muss zwischen 8 und 1024 Zeichen lang sein.');
  });

  it('says a project name is taken in the words of the page', async () => {
    expect((await post('/ui/console/projects', { name: 'Twice' }, 'en')).status).toBe(303);
    const again = await post('/ui/console/projects', { name: 'Twice' }, 'de');
    expect([again.status, again.message]).toEqual([400, 'Ein Projekt mit diesem Namen gibt es bereits.']);
  });
});
