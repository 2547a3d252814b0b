// The attacker's side of the escalation by silent sign-in (another org's app asking for the management scope), set up
// through the management API as a real org owner would: an IAM_OWNER sets up organization B (SetUpOrg) with its
// ORG_OWNER, who signs in, then registers a project and an OIDC app in org B whose redirect URI is the owner's own.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { callRest, okJson } from './management.ts';
import { humanToken } from './tokens.ts';
import type { TestServer } from './server.ts';

export interface OtherOrgApp {
  orgId: string;
  orgName: string;
  owner: { userId: string; userName: string; password: string; token: string };
  app: { name: string; clientId: string; clientSecret: string };
  /** Another app of the owner in org B, with the same redirect URI. */
  addApp(): Promise<OtherOrgApp['app']>;
}

let counter = 0;

export async function setUpOtherOrgApp(
  server: TestServer,
  iamOwnerToken: string,
  redirectUri: string,
): Promise<OtherOrgApp> {
  const n = `${process.pid}-${++counter}`;
  const orgName = `Org B ${n}`;
  const owner = { userName: `owner-b-${n}`, password: 'Owner-B-Password-1' };
  const { orgId, userId } = okJson<{ orgId: string; userId: string }>(
    await callRest(
      server.url,
      {
        service: AdminService,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'],
        body: {
          org: { name: orgName },
          human: {
            userName: owner.userName,
            profile: { firstName: 'Mallory', lastName: 'B' },
            email: { email: `${owner.userName}@example.com`, isEmailVerified: true },
            password: owner.password,
          },
        },
      },
      { token: iamOwnerToken },
    ),
  );
  // org B's owner signs in (an app of the first org) and provisions in their own org
  const token = await humanToken(server, owner.userName, owner.password);
  const { id: projectId } = okJson<{ id: string }>(
    await callRest(
      server.url,
      {
        service: ManagementService,
        method: 'AddProject',
        rest: ['POST', '/management/v1/projects'],
        body: { name: `Tools ${n}` },
      },
      { token },
    ),
  );
  const addApp = () => addOrgApp(server, token, projectId, redirectUri);
  return { orgId, orgName, owner: { ...owner, userId, token }, app: await addApp(), addApp };
}

let apps = 0;

/** An OIDC app (Basic secret, dev mode for a loopback callback) registered by the org's owner in their project. */
async function addOrgApp(
  server: TestServer,
  ownerToken: string,
  projectId: string,
  redirectUri: string,
): Promise<OtherOrgApp['app']> {
  const name = `admin-helper-${process.pid}-${++apps}`;
  const added = okJson<{ clientId: string; clientSecret: string }>(
    await callRest(
      server.url,
      {
        service: ManagementService,
        method: 'AddOIDCApp',
        rest: ['POST', `/management/v1/projects/${projectId}/apps/oidc`],
        body: {
          name,
          redirectUris: [redirectUri],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
          appType: 'OIDC_APP_TYPE_WEB',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          devMode: true,
        },
      },
      { token: ownerToken },
    ),
  );
  return { name, clientId: added.clientId, clientSecret: added.clientSecret };
}
