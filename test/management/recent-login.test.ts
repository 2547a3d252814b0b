// Sensitive changes on the auth API: the caller's own e-mail address, authenticator app and passkeys change only with a
// token whose login is at most REAUTH_SECONDS old, since a token alone is what anyone at an unlocked browser gets
// silently from the single sign-on session. The login is made old by moving the auth time its token carries back
// in the database (no waiting). SetMyEmail also tells the previous verified address, as the account page does.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, callRest, ENCODINGS, okJson, setUpOrgWithHuman, type ApiCall } from '../helpers/management.ts';
import { humanToken, startServerWithAdminKey } from '../helpers/tokens.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { totpOf } from '../factors/helpers.ts';
import { insertCredential } from '../../src/passkeys/queries.ts';
import { newId } from '../../src/platform/ids.ts';
import { REAUTH_SECONDS } from '../../src/oidc/recent-sign-in.ts';

const PASSWORD = 'Grace-Password-1';
const auth = (method: string, verb: string, path: string, body: Record<string, unknown> = {}): ApiCall => ({
  service: AuthService,
  method,
  rest: [verb, path],
  body,
});
const setMyEmail = (email: string) => auth('SetMyEmail', 'PUT', '/auth/v1/users/me/email', { email });
const addOtp = auth('AddMyAuthFactorOTP', 'POST', '/auth/v1/users/me/auth_factors/otp');
const verifyOtp = (code: string) =>
  auth('VerifyMyAuthFactorOTP', 'POST', '/auth/v1/users/me/auth_factors/otp/_verify', { code });
const removeOtp = auth('RemoveMyAuthFactorOTP', 'DELETE', '/auth/v1/users/me/auth_factors/otp');
const removePasskey = (tokenId: string) =>
  auth('RemoveMyPasswordless', 'DELETE', `/auth/v1/users/me/passwordless/${tokenId}`, { tokenId });

describe('sensitive self-service on the auth API needs a recent login', () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let admin: string;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    const started = await startServerWithAdminKey({ GATEHOUSE_SMTP_URL: smtp.url, GATEHOUSE_MAIL_POLL_MS: '200' });
    server = started.server;
    admin = started.adminToken;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  /** A user of an org of their own with a verified address, a passkey, and a token of a login just now. */
  async function setUpUser() {
    const userName = `grace-${++n}`;
    const email = `${userName}@example.com`;
    const { userId, orgId } = await setUpOrgWithHuman(server.url, admin, {
      userName,
      firstName: 'Grace',
      lastName: 'Hopper',
      email,
      verified: true,
      password: PASSWORD,
    });
    const passkeyId = newId();
    await insertCredential(server.db, {
      id: passkeyId,
      user_id: userId,
      credential_id: `cred-${passkeyId}`,
      public_key: 'pQECAyYgASFYIA',
      sign_count: 0,
      backup_eligible: false,
      backup_state: false,
      transports: ['internal'],
      name: 'Laptop',
    });
    const token = await humanToken(server, userName, PASSWORD);
    return { userId, orgId, email, passkeyId, token };
  }

  /** Moves the auth time that the user's access tokens carry `seconds` into the past: their login is that old. */
  async function ageLogins(userId: string, seconds: number): Promise<void> {
    const { rowCount } = await server.db.query(
      `UPDATE oidc_payloads
       SET payload = jsonb_set(payload, '{extra,auth_time}', to_jsonb((payload #>> '{extra,auth_time}')::bigint - $2))
       WHERE model = 'AccessToken' AND payload ->> 'accountId' = $1 AND payload #> '{extra,auth_time}' IS NOT NULL`,
      [userId, seconds],
    );
    expect(rowCount).toBeGreaterThan(0);
  }

  const storedState = async (userId: string) => {
    const { rows } = await server.db.query<{ email: string; factors: number; passkeys: number }>(
      `SELECT (SELECT email FROM users WHERE id = $1) AS email,
              (SELECT count(*)::int FROM user_totp WHERE user_id = $1) AS factors,
              (SELECT count(*)::int FROM webauthn_credentials WHERE user_id = $1) AS passkeys`,
      [userId],
    );
    return rows[0];
  };

  for (const encoding of ENCODINGS) {
    it(`${encoding}: a token of a login older than ${REAUTH_SECONDS} s changes nothing; the app is told to sign the user in again`, async () => {
      const user = await setUpUser();
      const before = await storedState(user.userId);
      await ageLogins(user.userId, REAUTH_SECONDS + 5);
      for (const call of [
        setMyEmail(`rider-${n}@example.com`),
        addOtp,
        verifyOtp('123456'),
        removeOtp,
        removePasskey(user.passkeyId),
      ]) {
        const refused = await callApi(server.url, encoding, call, { token: user.token });
        expect(refused, call.method).toMatchObject({ ok: false, code: 9 });
        const message = refused.ok || refused.message;
        expect(message, call.method).toMatch(/needs a sign-in from the last 5 minutes: sign the user in again/);
        expect(message, call.method).toMatch(/\(max_age=300 or prompt=login\).*\(AUTH-reauth1\)$/);
        if (encoding === 'rest') expect(refused).toMatchObject({ status: 400 });
      }
      expect(await storedState(user.userId)).toEqual(before);
      // reading stays open to the old token, and an org owner still changes the user's address without any proof
      okJson(
        await callApi(
          server.url,
          encoding,
          auth('ListMyAuthFactors', 'POST', '/auth/v1/users/me/auth_factors/_search'),
          { token: user.token },
        ),
      );
      okJson(
        await callApi(
          server.url,
          encoding,
          {
            service: ManagementService,
            method: 'UpdateHumanEmail',
            rest: ['PUT', `/management/v1/users/${user.userId}/email`],
            body: { userId: user.userId, email: `admin-set-${n}@example.com`, isEmailVerified: true },
          },
          { token: admin, orgId: user.orgId },
        ),
      );
    });
  }

  it('a token of a fresh login changes them; SetMyEmail tells the previous verified address', async () => {
    const user = await setUpUser();
    // a login just inside the window still counts
    await ageLogins(user.userId, REAUTH_SECONDS - 30);
    const call = (api: ApiCall) => callRest(server.url, api, { token: user.token });
    const address = `grace-new-${n}@example.com`;
    okJson(await call(setMyEmail(address)));
    const notice = await smtp.waitFor(user.email, /your e-mail address was changed/);
    expect(notice.text).toContain(`was changed to ${address}`);
    expect(mailCode(await smtp.waitFor(address, /verify your e-mail address/)).code).toBeTruthy();
    const added = okJson<{ url: string }>(await call(addOtp));
    okJson(await call(verifyOtp(totpOf(added.url).generate())));
    okJson(await call(removeOtp));
    okJson(await call(removePasskey(user.passkeyId)));
    expect(await storedState(user.userId)).toEqual({ email: address, factors: 0, passkeys: 0 });
  });
});
