// Access tokens for management API tests, obtained the way clients obtain them: the JWT-profile grant (RFC 7523,
// compat.md §6) with a service account key file, against the real token endpoint.
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Db } from '../../src/platform/db.ts';
import { appendEvent } from '../../src/events/log.ts';
import { newId } from '../../src/platform/ids.ts';
import { insertMachine } from '../../src/users/queries.ts';
import { addMachineKey, type ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { insertMembership } from '../../src/members/queries.ts';
import { startTestServer, type TestServer } from './server.ts';

export const MANAGEMENT_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';

export async function jwtProfileToken(issuer: string, keyFile: ServiceAccountKeyFile, scope = `openid ${MANAGEMENT_SCOPE}`): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
    .setIssuer(keyFile.userId).setSubject(keyFile.userId).setAudience(issuer)
    .setIssuedAt(now).setExpirationTime(now + 300)
    .sign(createPrivateKey(keyFile.key));
  const res = await fetch(`${issuer}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, scope }),
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A machine user in the given org with the given org roles, and its key file. */
export async function createMachineUser(db: Db, orgId: string, userName: string, orgRoles: string[] = []): Promise<ServiceAccountKeyFile> {
  return db.tx(async (tx) => {
    const id = newId();
    const added = await appendEvent(tx, { aggregateType: 'user', aggregateId: id, eventType: 'user.machine.added', payload: { userName }, resourceOwner: orgId, creator: 'test' });
    await insertMachine(tx, { id, orgId, userName, name: userName, description: '', accessTokenType: 'opaque', sequence: added.sequence });
    if (orgRoles.length) await insertMembership(tx, { userId: id, resourceType: 'org', resourceId: orgId, roles: orgRoles });
    return addMachineKey(tx, id);
  });
}

/** A server with the admin service account of the first start (IAM_OWNER) and a token for it. */
export async function startServerWithAdminKey(env: Record<string, string> = {}): Promise<{ server: TestServer; adminKey: ServiceAccountKeyFile; adminToken: string }> {
  const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-admin-key-')), 'admin.json');
  const server = await startTestServer({ env: { GATEHOUSE_ADMIN_KEY_FILE: keyPath, ...env } });
  try {
    const adminKey = JSON.parse(readFileSync(keyPath, 'utf8')) as ServiceAccountKeyFile;
    return { server, adminKey, adminToken: await jwtProfileToken(server.config.issuer, adminKey) };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
