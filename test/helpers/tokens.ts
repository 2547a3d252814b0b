// Access tokens for management API tests, obtained the way clients obtain them: the JWT-profile grant (RFC 7523) with a
// service account key file, or the code flow through the login page for a human user.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';
import type { ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { insertMembership } from '../../src/members/queries.ts';
import { startTestServer, type TestServer } from './server.ts';
import {
  assertion,
  basic,
  Browser,
  CALLBACK,
  createMachine,
  createOidcApp,
  defaultOrgId,
  pkceAuthorization,
  postForm,
} from './oidc.ts';

/** Any running Gatehouse: a test server, or a spawned process known by its URL and issuer. */
export type Target = Pick<TestServer, 'url'> & { config: Pick<TestServer['config'], 'issuer'> };

export async function jwtProfileToken(
  server: Target,
  keyFile: Pick<ServiceAccountKeyFile, 'keyId' | 'key' | 'userId'>,
  scope = `openid ${MANAGEMENT_API_SCOPE}`,
): Promise<string> {
  const res = await postForm(`${server.url}/oauth/v2/token`, {
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: await assertion(keyFile, server.config.issuer),
    scope,
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.json.access_token as string;
}

/** A machine user of the first org holding ORG_OWNER there (an admin of one org, not of the instance). */
export async function orgOwnerMachine(server: TestServer): Promise<Awaited<ReturnType<typeof createMachine>>> {
  const machine = await createMachine(server);
  await insertMembership(server.db, {
    userId: machine.userId,
    resourceType: 'org',
    resourceId: await defaultOrgId(server),
    roles: ['ORG_OWNER'],
  });
  return machine;
}

/** A human user's access token: code flow with PKCE through the login page. */
export async function humanToken(
  server: TestServer,
  loginName: string,
  password: string,
  scope = `openid ${MANAGEMENT_API_SCOPE}`,
): Promise<string> {
  const app = await createOidcApp(server);
  const { url, verifier } = await pkceAuthorization(server, app.clientId, { scope });
  const callback = await new Browser(server).authorize(url, loginName, password);
  const res = await postForm(
    `${server.url}/oauth/v2/token`,
    {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    },
    { authorization: basic(app.clientId, app.clientSecret!) },
  );
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.json.access_token as string;
}

/** A server with the admin service account of the first start (IAM_OWNER) and a token for it. */
export async function startServerWithAdminKey(
  env: Record<string, string> = {},
): Promise<{ server: TestServer; adminKey: ServiceAccountKeyFile; adminToken: string }> {
  const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-admin-key-')), 'admin.json');
  const server = await startTestServer({ env: { GATEHOUSE_ADMIN_KEY_FILE: keyPath, ...env } });
  try {
    const adminKey = JSON.parse(readFileSync(keyPath, 'utf8')) as ServiceAccountKeyFile;
    return { server, adminKey, adminToken: await jwtProfileToken(server, adminKey) };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
