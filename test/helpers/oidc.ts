// Test fixtures for the OIDC tests: apps and machine users created through the real service functions, a cookie
// jar that walks the browser redirects of a code flow through the login pages, and openid-client configs.
import { createPrivateKey } from 'node:crypto';
import * as client from 'openid-client';
import { SignJWT } from 'jose';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { addProject } from '../../src/projects/service.ts';
import { setUpOrg } from '../../src/instance/set-up-org.ts';
import { addOidcApp, addApiApp, addAppKey } from '../../src/apps/service.ts';
import type { OidcConfigInput } from '../../src/apps/schema.ts';
import { addMachineUser, addMachineUserKey, generateMachineSecret } from '../../src/users/machine-service.ts';
import { ADMIN_PASSWORD, type TestServer } from './server.ts';

export const secrets = createSecretBox('test-master-key-0123456789abcdef0123456789');
export const CALLBACK = 'https://rp.example.com/callback';
export const LOGOUT_CALLBACK = 'https://rp.example.com/logged-out';
export { ADMIN_PASSWORD };

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

export async function defaultOrgId(server: TestServer): Promise<string> {
  return (await server.db.query<{ default_org_id: string }>('SELECT default_org_id FROM instance')).rows[0]!
    .default_org_id;
}

export async function createProject(server: TestServer): Promise<string> {
  return (await addProject(server.db, { orgId: await defaultOrgId(server), name: unique('project') }, 'test'))
    .projectId;
}

export interface TestApp {
  appId: string;
  clientId: string;
  clientSecret?: string;
  projectId: string;
}

/** Another organization (SetUpOrg's service function), with an owner without password; its ID. */
export async function createOrg(server: TestServer, name = unique('Org')): Promise<string> {
  const owner = {
    userName: unique('owner'),
    profile: {
      firstName: 'O',
      lastName: 'Owner',
      nickName: '',
      displayName: '',
      preferredLanguage: '',
      gender: 'GENDER_UNSPECIFIED' as const,
    },
    email: 'owner@example.com',
    emailVerified: true,
    phone: null,
    phoneVerified: false,
    password: '',
  };
  const input = { org: { name, domain: '' }, human: owner, roles: [] };
  return (await setUpOrg(server.db, server.config.instanceDomain, input, 'test')).orgId;
}

export async function createOidcApp(
  server: TestServer,
  config: OidcConfigInput = {},
  projectId?: string,
): Promise<TestApp> {
  const project = projectId ?? (await createProject(server));
  const added = await addOidcApp(
    server.db,
    secrets,
    await orgOfProject(server, project),
    {
      projectId: project,
      name: unique('app'),
      redirectUris: [CALLBACK],
      postLogoutRedirectUris: [LOGOUT_CALLBACK],
      grantTypes: ['authorization_code', 'refresh_token'],
      ...config,
    },
    'test',
  );
  return { ...added, projectId: project };
}

export async function createApiApp(
  server: TestServer,
  projectId: string,
  authMethod: 'basic' | 'private_key_jwt' = 'basic',
): Promise<TestApp> {
  return {
    ...(await addApiApp(
      server.db,
      secrets,
      await orgOfProject(server, projectId),
      { projectId, name: unique('api'), authMethod },
      'test',
    )),
    projectId,
  };
}

export async function createAppKey(server: TestServer, appId: string) {
  const { rows } = await server.db.query<{ org_id: string; project_id: string }>(
    'SELECT p.org_id, a.project_id FROM apps a JOIN projects p ON p.id = a.project_id WHERE a.id = $1',
    [appId],
  );
  const ref = { orgId: rows[0]!.org_id, projectId: rows[0]!.project_id, appId };
  return (await addAppKey(server.db, ref, undefined, 'test')).keyFile;
}

/** The org a project belongs to: the services check that every object is of the org the caller names. */
async function orgOfProject(server: TestServer, projectId: string): Promise<string> {
  const { rows } = await server.db.query<{ org_id: string }>('SELECT org_id FROM projects WHERE id = $1', [projectId]);
  return rows[0]?.org_id ?? (await defaultOrgId(server));
}

export async function createMachine(server: TestServer, accessTokenType: 'opaque' | 'jwt' = 'opaque') {
  const userName = unique('svc');
  const orgId = await defaultOrgId(server);
  const { userId } = await addMachineUser(server.db, { orgId, userName, name: 'Service', accessTokenType }, 'test');
  const { keyFile } = await addMachineUserKey(server.db, { orgId, userId }, undefined, 'test');
  const { clientSecret } = await generateMachineSecret(server.db, secrets, { orgId, userId }, 'test');
  return { orgId, userId, userName, keyFile, clientSecret };
}

/** A JWT-profile assertion (RFC 7523) as ZITADEL's SDKs build it. */
export async function assertion(
  keyFile: { keyId: string; key: string; userId: string },
  aud: string,
  claims: Record<string, unknown> = {},
  iat = Math.floor(Date.now() / 1000),
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
    .setIssuer(keyFile.userId)
    .setSubject(keyFile.userId)
    .setAudience(aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(createPrivateKey(keyFile.key));
}

/** An OAuth endpoint's JSON answer as the tests read it (RFC 6749 §5.1 and §5.2, RFC 7662 §2.2): each field has
 *  the type of the answer that carries it, and a test asserts which answer it got. */
export interface OAuthJson {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: string;
  scope: string;
  expires_in: number;
  active: boolean;
  error: string;
  error_description: string;
  [field: string]: unknown;
}

/** Posts a form; `json` is the parsed answer, or {} when the answer is not JSON (its text is in `text`). */
export async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  let json: OAuthJson;
  try {
    json = JSON.parse(text) as OAuthJson;
  } catch {
    json = {} as OAuthJson;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** openid-client configuration for an app, over plain http on loopback. */
export async function rpConfig(
  server: TestServer,
  clientId: string,
  auth: client.ClientAuth,
  metadata: Partial<client.ClientMetadata> = {},
) {
  return client.discovery(new URL(server.url), clientId, metadata, auth, { execute: [client.allowInsecureRequests] });
}

/** A code flow with PKCE as openid-client runs it: the user signs in on the login pages, the code is redeemed. */
export async function openIdClientSignIn(
  server: TestServer,
  config: client.Configuration,
  flow: { redirectUri: string; scope: string; loginName: string; password: string },
) {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: flow.redirectUri,
    scope: flow.scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await new Browser(server).authorize(url, flow.loginName, flow.password);
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: client.skipStateCheck,
  });
}

/** A browser: cookies kept per name, redirects followed by hand until one leaves the server. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly #server: TestServer;
  readonly #relayed: Record<string, string>;
  /** `relayed`: headers a balancer in front of the server adds to every request (e.g. X-Forwarded-For). */
  constructor(server: TestServer, relayed: Record<string, string> = {}) {
    this.#server = server;
    this.#relayed = relayed;
  }

  async request(url: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.#relayed)) headers.set(name, value);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value.join('=') === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    return response;
  }

  /** Follows redirects on the server; returns the first response that is not a redirect to the server. */
  async follow(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let response = await this.request(current, init);
    for (let i = 0; i < 10 && response.status >= 300 && response.status < 400; i++) {
      const next = new URL(response.headers.get('location')!, current).toString();
      if (!next.startsWith(this.#server.url)) return { response, url: next };
      current = next;
      response = await this.request(current);
    }
    return { response, url: current };
  }

  /** Signs in on the login page at `loginUrl` (page 2 of the login pages: the password form, with the page's
   *  CSRF token and a same-origin Origin header, as a browser sends them). */
  async submitLogin(loginUrl: string, loginName: string, password: string) {
    const page = await (await this.request(loginUrl)).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    return this.follow(`${loginUrl}/password`, {
      method: 'POST',
      // the page's origin is the issuer's (behind a balancer, whichever instance served it)
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(this.#server.config.issuer).origin,
      },
      body: new URLSearchParams({ csrf, loginName, password }),
    });
  }

  /** Runs an authorization request through the login; returns the URL the browser is sent to at the RP. */
  async authorize(authorizationUrl: string | URL, loginName = 'admin', password = ADMIN_PASSWORD): Promise<URL> {
    const first = await this.follow(String(authorizationUrl));
    if (first.response.status >= 300 && first.response.status < 400) return new URL(first.url); // SSO: no login page
    if (!first.url.includes('/ui/login/'))
      throw new Error(`expected the login page, got ${first.response.status} ${first.url}`);
    const done = await this.submitLogin(first.url, loginName, password);
    if (!(done.response.status >= 300 && done.response.status < 400))
      throw new Error(`login did not redirect: ${done.response.status} ${await done.response.text()}`);
    return new URL(done.url);
  }
}

/** An authorization request with PKCE (S256): its URL and the verifier that redeems its code. `params` add to or
 *  override the defaults: redirect_uri CALLBACK, response_type code, scope openid. */
export async function pkceAuthorization(
  server: { url: string },
  clientId: string,
  params: Record<string, string> = {},
) {
  const verifier = client.randomPKCECodeVerifier();
  const url = new URL(`${server.url}/oauth/v2/authorize`);
  const all = {
    client_id: clientId,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) url.searchParams.set(k, v);
  return { url, verifier };
}

/** Runs a code flow with PKCE for an app with a secret (Basic) or a public app; returns the token response. */
export async function userTokens(
  server: TestServer,
  app: TestApp,
  scope = 'openid profile email offline_access',
  browser = new Browser(server),
  redirectUri = CALLBACK,
) {
  const { url, verifier } = await pkceAuthorization(server, app.clientId, { redirect_uri: redirectUri, scope });
  const callback = await browser.authorize(url);
  const form = {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code')!,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  };
  const res = app.clientSecret
    ? await postForm(`${server.url}/oauth/v2/token`, form, { authorization: basic(app.clientId, app.clientSecret) })
    : await postForm(`${server.url}/oauth/v2/token`, { ...form, client_id: app.clientId });
  if (res.status !== 200) throw new Error(`token request failed: ${res.text}`);
  return res.json as {
    access_token: string;
    id_token: string;
    refresh_token?: string;
    scope: string;
    expires_in: number;
  };
}
