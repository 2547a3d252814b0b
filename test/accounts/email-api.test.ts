// E-mail addresses and their verification on the management API (REST, gRPC, gRPC-Web), the mails received by a real
// SMTP server, email_verified in userinfo following; SetHumanPassword; refusals naming the field.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, ENCODINGS, okJson, setUpOrgWithHuman, type ApiCall } from '../helpers/management.ts';
import { humanToken, startServerWithAdminKey } from '../helpers/tokens.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';

const auth = (method: string, verb: string, path: string, body: Record<string, unknown> = {}): ApiCall => ({
  service: AuthService,
  method,
  rest: [verb, path],
  body,
});

describe('e-mail verification on the management API', () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let admin: string;

  const setUpUser = async (userName: string) => {
    const created = await setUpOrgWithHuman(server.url, admin, {
      userName,
      firstName: 'Barbara',
      lastName: 'Liskov',
      email: `${userName}@example.com`,
      password: 'Barbara-Password-1',
    });
    return {
      ...created,
      token: await humanToken(server, userName, 'Barbara-Password-1', `openid email ${MANAGEMENT_API_SCOPE}`),
    };
  };
  const emailVerified = async (token: string) => {
    const res = await fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { email_verified?: boolean }).email_verified;
  };

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

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('SetMyEmail mails a code; VerifyMyEmail with it verifies; email_verified in userinfo follows', async () => {
        const { token } = await setUpUser(`self-${encoding}`);
        const address = `new-self-${encoding}@example.com`;
        const bad = await callApi(
          server.url,
          encoding,
          auth('SetMyEmail', 'PUT', '/auth/v1/users/me/email', { email: 'not an address' }),
          { token },
        );
        expect(bad).toMatchObject({ ok: false, code: 3 });
        expect(bad.ok || bad.message).toMatch(/SetMyEmailRequest\.Email/);
        okJson(
          await callApi(
            server.url,
            encoding,
            auth('SetMyEmail', 'PUT', '/auth/v1/users/me/email', { email: address }),
            { token },
          ),
        );
        expect(await emailVerified(token)).toBe(false);
        const { code } = mailCode(await smtp.waitFor(address));
        const wrong = await callApi(
          server.url,
          encoding,
          auth('VerifyMyEmail', 'POST', '/auth/v1/users/me/email/_verify', { code: 'AAAAAAAA' }),
          { token },
        );
        expect(wrong.ok || wrong.message).toBe('Code is invalid (CODE-woT0xc)');
        okJson(
          await callApi(
            server.url,
            encoding,
            auth('VerifyMyEmail', 'POST', '/auth/v1/users/me/email/_verify', { code }),
            { token },
          ),
        );
        expect(await emailVerified(token)).toBe(true);
        // single use
        const again = await callApi(
          server.url,
          encoding,
          auth('VerifyMyEmail', 'POST', '/auth/v1/users/me/email/_verify', { code }),
          { token },
        );
        expect(again).toMatchObject({ ok: false, code: 3 });
        const resend = await callApi(
          server.url,
          encoding,
          auth('ResendMyEmailVerification', 'POST', '/auth/v1/users/me/email/_resend_verification'),
          { token },
        );
        expect(resend.ok || resend.message).toBe('Email is already verified (COMMAND-3M9ds)');
      });

      it('UpdateHumanEmail and ResendHumanEmailVerification by an org owner; hidden from other orgs', async () => {
        const { userId, orgId, token } = await setUpUser(`managed-${encoding}`);
        const address = `managed-new-${encoding}@example.com`;
        const update = (id: string, body: Record<string, unknown>): ApiCall => ({
          service: ManagementService,
          method: 'UpdateHumanEmail',
          rest: ['PUT', `/management/v1/users/${id}/email`],
          body: { userId: id, ...body },
        });
        okJson(await callApi(server.url, encoding, update(userId, { email: address }), { token: admin, orgId }));
        const first = mailCode(await smtp.waitFor(address));
        okJson(
          await callApi(
            server.url,
            encoding,
            {
              service: ManagementService,
              method: 'ResendHumanEmailVerification',
              rest: ['POST', `/management/v1/users/${userId}/email/_resend_verification`],
              body: { userId },
            },
            { token: admin, orgId },
          ),
        );
        await expect.poll(() => smtp.mails.filter((m) => m.to === address).length, { timeout: 10_000 }).toBe(2);
        const latest = mailCode(smtp.mails.filter((m) => m.to === address).at(-1)!);
        expect(latest.code).not.toBe(first.code);
        // the first code was replaced by the second
        const old = await callApi(
          server.url,
          encoding,
          auth('VerifyMyEmail', 'POST', '/auth/v1/users/me/email/_verify', { code: first.code }),
          { token },
        );
        expect(old).toMatchObject({ ok: false, code: 3 });
        // an administrator may set an address as verified: no mail
        okJson(
          await callApi(server.url, encoding, update(userId, { email: `verified-${address}`, isEmailVerified: true }), {
            token: admin,
            orgId,
          }),
        );
        expect(await emailVerified(token)).toBe(true);
        // the owner of another org does not see the user: not found, as for an unknown ID
        const other = await setUpUser(`other-${encoding}`);
        const foreign = await callApi(server.url, encoding, update(userId, { email: 'x@example.com' }), {
          token: other.token,
        });
        expect(foreign).toMatchObject({ ok: false, code: 5 });
      });

      it('SetHumanPassword: works, follows the policy, noChangeRequired decides the next sign-in', async () => {
        const { userId, orgId } = await setUpUser(`setpw-${encoding}`);
        const set = (password: string, noChangeRequired: boolean): ApiCall => ({
          service: ManagementService,
          method: 'SetHumanPassword',
          rest: ['POST', `/management/v1/users/${userId}/password`],
          body: { userId, password, noChangeRequired },
        });
        const weak = await callApi(server.url, encoding, set('short', true), { token: admin, orgId });
        expect(weak.ok || weak.message).toBe(
          'invalid SetHumanPasswordRequest.Password: must be between 8 and 1024 characters (COMMA-HuJf6)',
        );
        okJson(await callApi(server.url, encoding, set('Admin-Set-Password-1', true), { token: admin, orgId }));
        expect(await humanToken(server, `setpw-${encoding}`, 'Admin-Set-Password-1')).toBeTruthy();
        okJson(await callApi(server.url, encoding, set('Admin-Set-Password-2', false), { token: admin, orgId }));
        const { rows } = await server.db.query('SELECT password_change_required FROM users WHERE id = $1', [userId]);
        expect(rows[0]).toEqual({ password_change_required: true });
        // the login pages now ask for a new password before the authorization completes
        await expect(humanToken(server, `setpw-${encoding}`, 'Admin-Set-Password-2')).rejects.toThrow(
          /login did not redirect/,
        );
      });
    });
  }
});
