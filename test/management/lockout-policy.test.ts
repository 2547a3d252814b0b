// The lockout policy on REST, gRPC and gRPC-Web (ZITADEL's admin GetLockoutPolicy / UpdateLockoutPolicy, management
// GetLockoutPolicy): GATEHOUSE_LOCKOUT_MAX_ATTEMPTS until an administrator sets one, ZITADEL's "not changed", 400
// naming the field (0 is refused: the lock is never off), IAM_OWNER only for the update; a maxOtpAttempts of its own
// (second factors are counted apart), left out: maxPasswordAttempts; and the sign-in counts against the stored maximum
// at once, raised or lowered, without a restart.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCall } from '../helpers/management.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { describeEachEncoding, expectError, type ApiAnswer } from '../helpers/provisioning.ts';
import { Browser, createOidcApp, pkceAuthorization } from '../helpers/oidc.ts';
import { ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

const read: ApiCall = {
  service: AdminService,
  method: 'GetLockoutPolicy',
  rest: ['GET', '/admin/v1/policies/lockout'],
};
const readAsOrg: ApiCall = {
  service: ManagementService,
  method: 'GetLockoutPolicy',
  rest: ['GET', '/management/v1/policies/lockout'],
};
/** The proto's REST binding of UpdateLockoutPolicy is under /policies/password/. */
const updateLockout = (body: Record<string, unknown>): ApiCall => ({
  service: AdminService,
  method: 'UpdateLockoutPolicy',
  rest: ['PUT', '/admin/v1/policies/password/lockout'],
  body,
});

describeEachEncoding('lockout policy on the management API', ({ encoding, p, call, okCall }) => {
  // each encoding sets its own maximum on the suite's one server
  const mine = { rest: 7, grpc: 8, 'grpc-web': 9 }[encoding];

  it('reads the policy, updates it, and refuses the same value again with ZITADEL\'s "not changed"', async () => {
    const before = await okCall<{ policy: ApiAnswer }>(read, p.adminToken);
    expect(before.policy).toMatchObject({ isDefault: true });
    expect(before.policy.maxOtpAttempts).toBe(before.policy.maxPasswordAttempts);
    const updated = await okCall(updateLockout({ maxPasswordAttempts: mine }), p.adminToken);
    expect(Object.keys(updated.details).sort()).toEqual(['changeDate', 'resourceOwner', 'sequence']);
    const after = await okCall<{ policy: ApiAnswer }>(read, p.adminToken);
    expect(after.policy).toMatchObject({ maxPasswordAttempts: String(mine), maxOtpAttempts: String(mine) });
    expect(after.policy.details.sequence).toBe(updated.details.sequence);
    expectError(
      await call(updateLockout({ maxPasswordAttempts: mine, maxOtpAttempts: mine }), p.adminToken),
      encoding,
      9,
      'Lockout policy not changed (INSTANCE-0psjF)',
    );
    // second factors have a budget of their own; left out, it is maxPasswordAttempts again
    await okCall(updateLockout({ maxPasswordAttempts: mine, maxOtpAttempts: mine + 10 }), p.adminToken);
    expect((await okCall<{ policy: ApiAnswer }>(read, p.adminToken)).policy).toMatchObject({
      maxPasswordAttempts: String(mine),
      maxOtpAttempts: String(mine + 10),
    });
    await okCall(updateLockout({ maxPasswordAttempts: mine }), p.adminToken);
    expect((await okCall<{ policy: ApiAnswer }>(read, p.adminToken)).policy.maxOtpAttempts).toBe(String(mine));
    // org owners read the instance's policy, as their org's default
    const asOrg = await okCall<{ policy: ApiAnswer; isDefault: boolean }>(readAsOrg);
    expect(asOrg).toMatchObject({ isDefault: true, policy: { maxPasswordAttempts: String(mine) } });
  });

  it('refuses 0, too many (400 naming the field, OTP maximum too) and an org owner (403); nothing changes', async () => {
    expectError(
      await call(updateLockout({ maxPasswordAttempts: 0 }), p.adminToken),
      encoding,
      3,
      /MaxPasswordAttempts/,
    );
    expectError(
      await call(updateLockout({ maxPasswordAttempts: 1001 }), p.adminToken),
      encoding,
      3,
      /MaxPasswordAttempts/,
    );
    expectError(
      await call(updateLockout({ maxPasswordAttempts: 3, maxOtpAttempts: 1001 }), p.adminToken),
      encoding,
      3,
      /MaxOtpAttempts/,
    );
    expectError(await call(updateLockout({ maxPasswordAttempts: 3 })), encoding, 7);
    expectError(await call(read), encoding, 7);
    const still = await okCall<{ policy: ApiAnswer }>(read, p.adminToken);
    expect(still.policy).toMatchObject({ maxPasswordAttempts: String(mine), maxOtpAttempts: String(mine) });
  });
});

describe('the sign-in counts against the stored lockout policy', () => {
  let server: TestServer;
  let adminToken: string;
  let clientId: string;

  beforeAll(async () => {
    ({ server, adminToken } = await startServerWithAdminKey({ GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '5' }));
    clientId = (await createOidcApp(server)).clientId;
  });
  afterAll(async () => server?.stop());

  const setPolicy = async (maxPasswordAttempts: number) =>
    okJson(await callRest(server.url, updateLockout({ maxPasswordAttempts }), { token: adminToken }));
  /** The status of each password post in one login (401: wrong, 429: locked, 303: signed in). */
  const attempts = async (loginName: string, passwords: string[]) => {
    const browser = new Browser(server);
    const login = await browser.follow((await pkceAuthorization(server, clientId)).url.href);
    const statuses: number[] = [];
    for (const password of passwords)
      statuses.push((await browser.submitLogin(login.url, loginName, password)).response.status);
    return statuses;
  };

  it('a lowered maximum locks after that many failures, a raised one allows more, at once', async () => {
    await setPolicy(2);
    // the second failure locks (429), so the right password is refused too (the default would allow 5)
    expect(await attempts('admin', ['wrong 1', 'wrong 2', ADMIN_PASSWORD])).toEqual([401, 429, 429]);
    okJson(
      await callRest(
        server.url,
        {
          service: ManagementService,
          method: 'ImportHumanUser',
          rest: ['POST', '/management/v1/users/human/_import'],
          body: {
            userName: 'lockout-raised',
            email: { email: 'raised@example.com', isEmailVerified: true },
            profile: { firstName: 'R', lastName: 'Aised' },
            password: 'Raised-Password-1',
          },
        },
        { token: adminToken },
      ),
    );
    await setPolicy(7);
    const wrong = Array.from({ length: 7 }, (_, i) => `wrong ${i}`);
    // six failures pass the old maximum without a lock; the seventh locks
    expect(await attempts('lockout-raised', [...wrong, 'Raised-Password-1'])).toEqual([
      ...wrong.slice(1).map(() => 401),
      429,
      429,
    ]);
  });
});
