// ZITADEL's own Node SDK (@zitadel/node, native gRPC through nice-grpc) against the roles and grants operations: roles,
// a user grant, its list and metadata, and an error as the SDK reports it.
import { createManagementClient, createServiceAccountInterceptor } from '@zitadel/node/dist/api/index.js';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import type { ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('@zitadel/node: roles, grants and metadata', () => {
  let server: TestServer;
  let adminKey: ServiceAccountKeyFile;
  beforeAll(async () => ({ server, adminKey } = await startServerWithAdminKey()));
  afterAll(async () => server?.stop());

  it('adds roles and a grant, lists and reads it, sets metadata; an unknown role key is FAILED_PRECONDITION', async () => {
    const account = ServiceAccount.fromJson(adminKey);
    const client = createManagementClient(
      server.url,
      createServiceAccountInterceptor(server.config.issuer, account, { apiAccess: true }),
    );
    const { id: projectId } = await client.addProject({ name: 'SDK Library' });
    await client.bulkAddProjectRoles({
      projectId,
      roles: [
        { key: 'reader', displayName: 'Reader', group: '' },
        { key: 'librarian', displayName: 'Librarian', group: '' },
      ],
    });
    const roles = await client.listProjectRoles({ projectId, queries: [] });
    expect(roles.result.map((r) => r.key).sort()).toEqual(['librarian', 'reader']);
    expect(Number(roles.details?.totalResult)).toBe(2); // a Long in this SDK
    const { userId } = await client.importHumanUser({
      userName: 'sdk-reader',
      profile: {
        firstName: 'Sdk',
        lastName: 'Reader',
        nickName: '',
        displayName: '',
        preferredLanguage: '',
        gender: 0,
      },
      email: { email: 'sdk-reader@example.com', isEmailVerified: true },
      password: 'Sdk-Reader-Password-1',
      passwordChangeRequired: false,
      requestPasswordlessRegistration: false,
      otpCode: '',
      idps: [],
    } as never);
    const { userGrantId } = await client.addUserGrant({ userId, projectId, projectGrantId: '', roleKeys: ['reader'] });
    const listed = await client.listUserGrants({ queries: [{ userIdQuery: { userId } }] });
    expect(listed.result).toEqual([expect.objectContaining({ id: userGrantId, roleKeys: ['reader'], projectId })]);
    const read = await client.getUserGrantByID({ userId, grantId: userGrantId });
    expect(read.userGrant?.projectName).toBe('SDK Library');
    await client.setUserMetadata({ id: userId, key: 'shelf', value: Buffer.from('A-3') });
    const metadata = await client.getUserMetadata({ id: userId, key: 'shelf' });
    expect(Buffer.from(metadata.metadata!.value).toString()).toBe('A-3');
    const error = await client
      .addUserGrant({ userId, projectId, projectGrantId: '', roleKeys: ['ghost'] })
      .catch((e: unknown) => e);
    // FAILED_PRECONDITION, as ZITADEL answers it: the SDK's callers branch on the code
    expect(error).toMatchObject({ code: 9, details: expect.stringContaining('(COMMAND-mm9F4)') });
  });
});
