// ZITADEL's own Node SDK against Gatehouse: its service-account helper gets a token with the admin key file of the
// first start (JWT-profile grant, discovery at the issuer), and its admin client calls SetUpOrg over native gRPC
// (@grpc/grpc-js through nice-grpc, HTTP/2 cleartext).
import { createAdminClient, createServiceAccountInterceptor } from '@zitadel/node/dist/api/index.js';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import type { ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

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
    const unimplemented = await client.removeOrg({ orgId: response.orgId! }).catch((e: unknown) => e);
    expect(unimplemented).toMatchObject({ code: 12 });
  });
});
