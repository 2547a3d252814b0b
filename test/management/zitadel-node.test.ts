// ZITADEL's own Node SDK against Gatehouse: its service-account helper gets a token with the admin key file of the
// first start (JWT-profile grant, discovery at the issuer), and its admin and management clients call SetUpOrg and
// the lifecycle methods over native gRPC (@grpc/grpc-js through nice-grpc, HTTP/2 cleartext).
import {
  createAdminClient,
  createManagementClient,
  createServiceAccountInterceptor,
} from '@zitadel/node/dist/api/index.js';
import { TextQueryMethod } from '@zitadel/node/dist/api/generated/zitadel/object.js';
import { UserState } from '@zitadel/node/dist/api/generated/zitadel/user.js';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import type { ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import { linkIdentity } from '../../src/idps/links.ts';

describe('@zitadel/node', () => {
  let server: TestServer;
  let adminKey: ServiceAccountKeyFile;
  beforeAll(async () => ({ server, adminKey } = await startServerWithAdminKey()));
  afterAll(async () => server?.stop());

  it('SetUpOrg over gRPC with the service-account helper and the admin key file', async () => {
    const account = ServiceAccount.fromJson(adminKey);
    const client = createAdminClient(
      server.url,
      createServiceAccountInterceptor(server.config.issuer, account, { apiAccess: true }),
    );
    const response = await client.setUpOrg({
      org: { name: 'SDK Org', domain: '' },
      human: {
        userName: 'sdk-user',
        profile: {
          firstName: 'Sdk',
          lastName: 'User',
          nickName: '',
          displayName: '',
          preferredLanguage: 'en',
          gender: 1,
        },
        email: { email: 'sdk-user@example.com', isEmailVerified: false },
        phone: { phone: '+41790000000', isPhoneVerified: false },
        password: 'Sdk-Password-1',
      },
      roles: [],
    });
    expect(response.orgId).toMatch(/^\d+$/);
    expect(response.userId).toMatch(/^\d+$/);
    expect(response.details?.resourceOwner).toBe(response.orgId);
    expect(BigInt(response.details!.sequence!.toString())).toBeGreaterThan(0n);
    expect(response.details?.creationDate).toBeInstanceOf(Date);

    const read = await client.getOrgByID({ id: response.orgId! });
    expect(read.org).toMatchObject({ id: response.orgId, name: 'SDK Org', primaryDomain: 'sdk-org.127.0.0.1' });

    // a ZITADEL error as the SDK reports it: gRPC status and message
    const error = await client.setUpOrg({ org: { name: 'SDK Org', domain: '' }, roles: [] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 3, details: 'invalid SetUpOrgRequest.User: value is required' });
    const unimplemented = await client.addOIDCIDP({ name: 'OIDC' }).catch((e: unknown) => e);
    expect(unimplemented).toMatchObject({ code: 12 });
  });

  it('the lifecycle over gRPC: ListUsers, LockUser, RemoveUser, ListApps, ListOrgs, RemoveOrg', async () => {
    const interceptor = createServiceAccountInterceptor(server.config.issuer, ServiceAccount.fromJson(adminKey), {
      apiAccess: true,
    });
    const management = createManagementClient(server.url, interceptor);
    const admin = createAdminClient(server.url, interceptor);
    const { userId } = await management.addHumanUser({
      userName: 'sdk-life',
      profile: { firstName: 'Sdk', lastName: 'Life' },
      email: { email: 'sdk-life@example.com', isEmailVerified: true },
      initialPassword: 'Sdk-Life-Password-1',
    });
    const listed = await management.listUsers({
      query: { limit: 10, asc: true },
      queries: [
        { userNameQuery: { userName: 'SDK-LI', method: TextQueryMethod.TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE } },
      ],
    });
    expect(listed.result?.map((u) => u.id)).toEqual([userId]);
    expect(Number(listed.details?.totalResult)).toBe(1);
    await management.lockUser({ id: userId! });
    expect((await management.getUserByID({ id: userId! })).user?.state).toBe(UserState.USER_STATE_LOCKED);
    await management.removeUser({ id: userId! });
    expect((await management.isUserUnique({ userName: 'sdk-life', email: '' })).isUnique).toBe(true);
    const gone = await management.getUserByID({ id: userId! }).catch((e: unknown) => e);
    expect(gone).toMatchObject({ code: 5 });

    const { id: projectId } = await management.addProject({ name: 'SDK Life' });
    const { appId } = await management.addAPIApp({ projectId: projectId!, name: 'sdk-api' });
    const apps = await management.listApps({ projectId: projectId! });
    expect(apps.result?.map((a) => a.id)).toEqual([appId]);

    const orgs = await admin.listOrgs({
      queries: [{ nameQuery: { name: 'SDK Org', method: TextQueryMethod.TEXT_QUERY_METHOD_EQUALS } }],
    });
    expect(orgs.result).toHaveLength(1);
    await admin.removeOrg({ orgId: orgs.result![0]!.id! });
    expect(await admin.getOrgByID({ id: orgs.result![0]!.id! }).catch((e: unknown) => e)).toMatchObject({ code: 5 });
  });

  it('the JWT IdPs over gRPC: ListIDPs, UpdateIDP, the login policy, RemoveHumanLinkedIDP, RemoveIDP', async () => {
    const interceptor = createServiceAccountInterceptor(server.config.issuer, ServiceAccount.fromJson(adminKey), {
      apiAccess: true,
    });
    const admin = createAdminClient(server.url, interceptor);
    const management = createManagementClient(server.url, interceptor);
    const { idpId } = await admin.addJWTIDP({
      name: 'SDK IdP',
      jwtEndpoint: 'https://legacy.example.com/jwt',
      issuer: 'https://legacy.example.com',
      keysEndpoint: 'https://legacy.example.com/keys',
      headerName: 'x-auth',
    });
    await admin.updateIDP({ idpId, name: 'SDK IdP renamed', autoRegister: true });
    const listed = await admin.listIDPs({ queries: [{ idpIdQuery: { id: idpId } }] });
    expect(listed.result?.map((i) => [i.name, i.autoRegister, i.jwtConfig?.headerName])).toEqual([
      ['SDK IdP renamed', true, 'x-auth'],
    ]);
    await admin.updateIDPJWTConfig({
      idpId,
      jwtEndpoint: 'https://legacy.example.com/jwt',
      issuer: 'https://legacy.example.com',
      keysEndpoint: 'https://legacy.example.com/keys2',
      headerName: 'x-auth',
    });
    await admin.addIDPToLoginPolicy({ idpId });
    expect((await admin.listLoginPolicyIDPs({})).result?.map((r) => r.idpId)).toContain(idpId);
    await admin.removeIDPFromLoginPolicy({ idpId });
    expect((await admin.listLoginPolicyIDPs({})).result?.map((r) => r.idpId) ?? []).not.toContain(idpId);
    const admins = await server.db.query<{ id: string; org_id: string }>(
      "SELECT id, org_id FROM users WHERE user_name = 'admin'",
    );
    const user = admins.rows[0]!;
    await server.db.tx((tx) =>
      linkIdentity(tx, user.id, user.org_id, { idpId: idpId!, externalUserId: 'sdk-sub', displayName: 'Sdk' }),
    );
    const links = await management.listHumanLinkedIDPs({ userId: user.id });
    expect(links.result?.map((l) => l.providedUserId)).toEqual(['sdk-sub']);
    await management.removeHumanLinkedIDP({ userId: user.id, idpId, linkedUserId: 'sdk-sub' });
    expect((await management.listHumanLinkedIDPs({ userId: user.id })).result ?? []).toEqual([]);
    await admin.removeIDP({ idpId });
    expect(await admin.getIDPByID({ id: idpId! }).catch((e: unknown) => e)).toMatchObject({ code: 5 });
  });
});
