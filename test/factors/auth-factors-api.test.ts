// Second factors on the management API, over REST, gRPC and gRPC-Web: the login policy (GetLoginPolicy,
// UpdateLoginPolicy, the lifetimes that are settings), and TOTP factors: ListMyAuthFactors, AddMyAuthFactorOTP,
// VerifyMyAuthFactorOTP (wrong code refused), RemoveMyAuthFactorOTP, and an org owner's ListHumanAuthFactors and
// RemoveHumanAuthFactorOTP (another org's user is 404).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, callRest, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken, jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';
import type { TestServer } from '../helpers/server.ts';
import { addUser, ALL_ALLOWED, nextCode, PASSWORD, setLoginPolicy, totpOf } from './helpers.ts';

const getPolicy: ApiCall = {
  service: AdminService,
  method: 'GetLoginPolicy',
  rest: ['GET', '/admin/v1/policies/login'],
};
const updatePolicy = (body: Record<string, unknown>): ApiCall => ({
  service: AdminService,
  method: 'UpdateLoginPolicy',
  rest: ['PUT', '/admin/v1/policies/login'],
  body,
});
const listMine: ApiCall = {
  service: AuthService,
  method: 'ListMyAuthFactors',
  rest: ['POST', '/auth/v1/users/me/auth_factors/_search'],
};
const addOtp: ApiCall = {
  service: AuthService,
  method: 'AddMyAuthFactorOTP',
  rest: ['POST', '/auth/v1/users/me/auth_factors/otp'],
};
const verifyOtp = (code: string): ApiCall => ({
  service: AuthService,
  method: 'VerifyMyAuthFactorOTP',
  rest: ['POST', '/auth/v1/users/me/auth_factors/otp/_verify'],
  body: { code },
});
const removeMine: ApiCall = {
  service: AuthService,
  method: 'RemoveMyAuthFactorOTP',
  rest: ['DELETE', '/auth/v1/users/me/auth_factors/otp'],
};
const listHuman = (userId: string): ApiCall => ({
  service: ManagementService,
  method: 'ListHumanAuthFactors',
  rest: ['POST', `/management/v1/users/${userId}/auth_factors/_search`],
  body: { userId },
});
const removeHuman = (userId: string): ApiCall => ({
  service: ManagementService,
  method: 'RemoveHumanAuthFactorOTP',
  rest: ['DELETE', `/management/v1/users/${userId}/auth_factors/otp`],
  body: { userId },
});

describe('second factors and the login policy on the management API', () => {
  let server: TestServer;
  let admin: string;
  let orgOwner: string;
  let otherOrgUser: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey({ GATEHOUSE_SESSION_ABSOLUTE_TTL: '86400' });
    server = started.server;
    admin = started.adminToken;
    orgOwner = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
    otherOrgUser = okJson<{ userId: string }>(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'SetUpOrg',
          rest: ['POST', '/admin/v1/orgs/_setup'],
          body: {
            org: { name: 'Elsewhere' },
            human: {
              userName: 'elsewhere-user',
              profile: { firstName: 'E', lastName: 'W' },
              email: { email: 'e@example.com' },
              password: PASSWORD,
            },
          },
        },
        { token: admin },
      ),
    ).userId;
  });
  afterAll(async () => server?.stop());

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('reads and replaces the login policy; lifetimes are the session setting; org owners only read', async () => {
        const before = okJson<{ policy: Record<string, unknown> }>(
          await callApi(server.url, encoding, getPolicy, { token: admin }),
        );
        expect(before.policy).toMatchObject({
          allowUsernamePassword: true,
          allowRegister: true,
          allowExternalIdp: true,
          passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
          passwordCheckLifetime: '86400s',
          secondFactorCheckLifetime: '86400s',
          secondFactors: ['SECOND_FACTOR_TYPE_OTP'],
        });
        expect(before.policy.forceMfa).toBeUndefined(); // false is omitted, as ZITADEL's REST gateway omits zero values
        try {
          const changed = { ...ALL_ALLOWED, allowRegister: false, forceMfa: true, passwordCheckLifetime: '86400s' };
          okJson(await callApi(server.url, encoding, updatePolicy(changed), { token: admin }));
          const again = await callApi(server.url, encoding, updatePolicy(changed), { token: admin });
          expect(again).toMatchObject({ ok: false, code: 9 });
          expect(again.ok || again.message).toBe('Login policy not changed (INSTANCE-5M9vdd)');
          const after = okJson<{ policy: Record<string, unknown> }>(
            await callApi(server.url, encoding, getPolicy, { token: admin }),
          );
          expect(after.policy).toMatchObject({ forceMfa: true, allowUsernamePassword: true });
          expect(after.policy.allowRegister).toBeUndefined();
          const ownerView = okJson<{ policy: Record<string, unknown>; isDefault?: boolean }>(
            await callApi(
              server.url,
              encoding,
              { service: ManagementService, method: 'GetLoginPolicy', rest: ['GET', '/management/v1/policies/login'] },
              { token: orgOwner },
            ),
          );
          expect(ownerView.policy).toMatchObject({ forceMfa: true });
          const refused = await callApi(server.url, encoding, updatePolicy(ALL_ALLOWED), { token: orgOwner });
          expect(refused).toMatchObject({ ok: false, code: 7 });
          const lifetime = await callApi(
            server.url,
            encoding,
            updatePolicy({ ...ALL_ALLOWED, secondFactorCheckLifetime: '3600s' }),
            { token: admin },
          );
          expect(lifetime).toMatchObject({ ok: false, code: 3 });
          expect(lifetime.ok || lifetime.message).toMatch(/UpdateLoginPolicyRequest\.SecondFactorCheckLifetime/);
          const noWayIn = await callApi(
            server.url,
            encoding,
            updatePolicy({ allowUsernamePassword: false, allowExternalIdp: false }),
            { token: admin },
          );
          expect(noWayIn).toMatchObject({ ok: false, code: 3 });
          // refused updates changed nothing
          const still = okJson<{ policy: Record<string, unknown> }>(
            await callApi(server.url, encoding, getPolicy, { token: admin }),
          );
          expect(still.policy).toMatchObject({ forceMfa: true, allowUsernamePassword: true });
        } finally {
          await setLoginPolicy(server, admin, {});
        }
      });

      it('adds, confirms, lists and removes a TOTP authenticator of the caller; an org owner lists and removes', async () => {
        const userName = await addUser(server, `api-${encoding}`);
        const token = await humanToken(server, userName, PASSWORD);
        const { userId } = (
          await server.db.query<{ userId: string }>('SELECT id AS "userId" FROM users WHERE user_name = $1', [userName])
        ).rows[0]!;
        expect(okJson(await callApi(server.url, encoding, listMine, { token }))).toEqual({});
        const added = okJson<{ url: string; secret: string; details: object }>(
          await callApi(server.url, encoding, addOtp, { token }),
        );
        expect(added.url).toMatch(/^otpauth:\/\/totp\//);
        const totp = totpOf(added.url);
        expect(totp.secret.base32).toBe(added.secret);
        expect([totp.algorithm, totp.digits, totp.period]).toEqual(['SHA1', 6, 30]);
        expect(totp.label).toContain(userName);
        expect(okJson(await callApi(server.url, encoding, listMine, { token }))).toEqual({
          result: [{ state: 'AUTH_FACTOR_STATE_NOT_READY', otp: {} }],
        });
        const wrong = String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0');
        expect(await callApi(server.url, encoding, verifyOtp(wrong), { token })).toMatchObject({ ok: false, code: 3 });
        okJson(await callApi(server.url, encoding, verifyOtp(totp.generate()), { token }));
        expect(okJson(await callApi(server.url, encoding, listMine, { token }))).toEqual({
          result: [{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }],
        });
        // confirming it again: ZITADEL's FAILED_PRECONDITION (command/user_human_otp.go HumanCheckMFATOTPSetup)
        expect(await callApi(server.url, encoding, verifyOtp(totp.generate()), { token })).toMatchObject({
          ok: false,
          code: 9,
          message: 'Multifactor OTP is already set up (COMMAND-qx4ls)',
        });
        // a second authenticator while one is ready: ZITADEL's AlreadyExists
        expect(await callApi(server.url, encoding, addOtp, { token })).toMatchObject({ ok: false, code: 6 });
        expect(okJson(await callApi(server.url, encoding, listHuman(userId), { token: orgOwner }))).toEqual({
          result: [{ state: 'AUTH_FACTOR_STATE_READY', otp: {} }],
        });
        // another org's user is not found, for its own org's owner's peers and the instance admin's default org
        for (const caller of [orgOwner, admin]) {
          expect(await callApi(server.url, encoding, listHuman(otherOrgUser), { token: caller })).toMatchObject({
            ok: false,
            code: 5,
          });
          expect(await callApi(server.url, encoding, removeHuman(otherOrgUser), { token: caller })).toMatchObject({
            ok: false,
            code: 5,
          });
        }
        okJson(await callApi(server.url, encoding, removeHuman(userId), { token: orgOwner }));
        expect(okJson(await callApi(server.url, encoding, listMine, { token }))).toEqual({});
        const { rows } = await server.db.query<{ factor_kinds: string[] }>(
          'SELECT factor_kinds FROM users WHERE id = $1',
          [userId],
        );
        expect(rows[0]!.factor_kinds).toEqual([]);
        // added and confirmed again, then removed by the user
        const again = totpOf(okJson<{ url: string }>(await callApi(server.url, encoding, addOtp, { token })).url);
        okJson(await callApi(server.url, encoding, verifyOtp(nextCode(again)), { token }));
        okJson(await callApi(server.url, encoding, removeMine, { token }));
        expect(await callApi(server.url, encoding, removeMine, { token })).toMatchObject({
          ok: false,
          code: 5,
          message: 'OTP not found (COMMAND-Hd9sd)', // command/user_human_otp.go HumanRemoveTOTP
        });
        // the secret is sealed at rest: the stored value is not the base32 secret
        const sealed = await server.db.query('SELECT 1 FROM user_totp WHERE sealed_secret LIKE $1', [
          `%${added.secret}%`,
        ]);
        expect(sealed.rowCount).toBe(0);
      });
    });
  }
});
