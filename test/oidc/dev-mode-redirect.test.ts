// An app whose registered redirect URI is http while development mode is off: the provider never accepts the address,
// and instead of "not registered" (which the app's page contradicts) the error page says the real reason, naming the
// app's own address, in the person's language, and the server logs a warning naming the client. An address the app
// never registered keeps the generic answer, without the address; with development mode on, the sign-in goes ahead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOidcAppConfig } from '../../src/apps/service.ts';
import { ROUTES } from '../../src/oidc/protocol.ts';
import { CALLBACK, createOidcApp, defaultOrgId, secrets, type TestApp } from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const HTTP_CALLBACK = 'http://localhost:3000/callback';
const HTTP_LOGGED_OUT = 'http://localhost:3000/bye';

describe('a registered http redirect URI outside development mode', () => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer();
    app = await createOidcApp(server, {
      redirectUris: [HTTP_CALLBACK, CALLBACK],
      postLogoutRedirectUris: [HTTP_LOGGED_OUT],
    });
  });
  afterAll(async () => server?.stop());

  const authorize = (redirectUri: string, headers: Record<string, string> = {}, params: Record<string, string> = {}) =>
    fetch(
      `${server.url}${ROUTES.authorization}?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        ...params,
      })}`,
      { redirect: 'manual', headers: { accept: 'text/html', ...headers } },
    );
  const warnings = () =>
    server.logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; client_id?: string })
      .filter((l) => l.level === 40 && l.client_id === app.clientId);

  it('the sign-in error page says the address needs development mode, and the server warns naming the client', async () => {
    const response = await authorize(HTTP_CALLBACK);
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(body).toContain(HTTP_CALLBACK);
    expect(body).toContain('development mode');
    expect(body).toContain('<code id="error-code">invalid_redirect_uri</code>');
    expect(warnings()).toEqual([
      expect.objectContaining({
        redirect_uri: HTTP_CALLBACK,
        msg: "redirect_uri refused: the app's http address is accepted only in development mode",
      }),
    ]);

    const german = await (await authorize(HTTP_CALLBACK, {}, { ui_locales: 'de' })).text();
    expect(german).toContain('Entwicklungsmodus');
    expect(german).toContain(HTTP_CALLBACK);
  });

  it('says the same for an app whose only redirect URI is http (no usable one at all)', async () => {
    const only = await createOidcApp(server, { redirectUris: [HTTP_CALLBACK], postLogoutRedirectUris: [] });
    const response = await fetch(
      `${server.url}${ROUTES.authorization}?${new URLSearchParams({
        client_id: only.clientId,
        redirect_uri: HTTP_CALLBACK,
        response_type: 'code',
        scope: 'openid',
      })}`,
      { redirect: 'manual', headers: { accept: 'text/html' } },
    );
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(body).toContain(`send you back to ${HTTP_CALLBACK}`);
    expect(body).toContain('<code id="error-code">invalid_redirect_uri</code>');
    expect(server.logs.some((line) => line.includes(only.clientId) && line.includes('development mode'))).toBe(true);
  });

  it('an address the app never registered keeps the generic answer, without the address, and no warning', async () => {
    const before = warnings().length;
    const body = await (await authorize('http://localhost:3000/other')).text();
    expect(body).toContain('not registered for it');
    expect(body).not.toContain('localhost:3000');
    expect(body).not.toContain('development mode');
    expect(warnings().length).toBe(before);
  });

  it("the sign-out page says why it did not send the person back to the app's http address", async () => {
    const response = await fetch(
      `${server.url}${ROUTES.end_session}?${new URLSearchParams({
        client_id: app.clientId,
        post_logout_redirect_uri: HTTP_LOGGED_OUT,
      })}`,
      { redirect: 'manual', headers: { accept: 'text/html', 'accept-language': 'en' } },
    );
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(body).toContain(HTTP_LOGGED_OUT);
    expect(body).toContain('development mode');
    expect(warnings().at(-1)).toMatchObject({ post_logout_redirect_uri: HTTP_LOGGED_OUT });
  });

  it('with development mode on, the same address starts the sign-in', async () => {
    await updateOidcAppConfig(
      server.db,
      secrets,
      { orgId: await defaultOrgId(server), projectId: app.projectId, appId: app.appId },
      {
        redirectUris: [HTTP_CALLBACK, CALLBACK],
        postLogoutRedirectUris: [HTTP_LOGGED_OUT],
        grantTypes: ['authorization_code', 'refresh_token'],
        devMode: true,
      },
      'test',
    );
    const response = await authorize(
      HTTP_CALLBACK,
      {},
      { code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toContain('/ui/login/');
  });
});
