// Addresses people type under /ui, over HTTP against the real server: the root goes to the console, a known page
// with a trailing slash to the page without it (query kept), anything else is an HTML "page not found" in the
// request's language with the pages' security headers and a way on; paths outside /ui keep the APIs' JSON 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('addresses with no page under /ui', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: 'manual', ...init });

  it('sends /ui and /ui/ to the console', async () => {
    for (const path of ['/ui', '/ui/']) {
      const response = await get(path);
      expect([path, response.status, response.headers.get('location')]).toEqual([path, 302, '/ui/console']);
    }
  });

  it('takes the trailing slash off a known page with 308, keeping the query; HEAD too', async () => {
    const cases: [string, string][] = [
      ['/ui/console/', '/ui/console'],
      ['/ui/console/users/?q=ad&offset=0', '/ui/console/users?q=ad&offset=0'],
      ['/ui/console/projects/123456//', '/ui/console/projects/123456'],
      ['/ui/account/', '/ui/account'],
    ];
    for (const [path, location] of cases) {
      const response = await get(path);
      expect([path, response.status, response.headers.get('location')]).toEqual([path, 308, location]);
    }
    const head = await get('/ui/account/', { method: 'HEAD' });
    expect([head.status, head.headers.get('location')]).toEqual([308, '/ui/account']);
  });

  it('answers an unknown address under /ui with an HTML 404 page in the asked language, with a way on', async () => {
    for (const path of ['/ui/login', '/ui/login/', '/ui/nothing-here', '/ui/console/nothing/here/']) {
      const response = await get(path);
      const body = await response.text();
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-language')).toBe('en');
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(body).toContain('<h1>Page not found</h1>');
      expect(body).toContain('href="/ui/account"');
      expect(body).toContain('href="/ui/console"');
      for (const [, url] of body.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url!.startsWith('/')).toBe(true);
    }
    const german = await get('/ui/login', { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(german.headers.get('content-language')).toBe('de');
    expect(await german.text()).toContain('<h1>Seite nicht gefunden</h1>');
    const asked = await get('/ui/nothing?ui_locales=de', { headers: { 'accept-language': 'en' } });
    expect(await asked.text()).toContain('Verwaltungskonsole');
  });

  it('answers a post to an unknown address under /ui with the page, not a redirect', async () => {
    const response = await get('/ui/console/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=b',
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('Page not found');
  });

  it('keeps the JSON 404 of paths outside /ui', async () => {
    for (const path of ['/uix', '/management/v1/nothing', '/nothing', '/oauth/v2/nothing']) {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });
});
