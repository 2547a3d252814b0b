// Passwords on the management API, over REST, gRPC and gRPC-Web: the password complexity policy and where it is
// checked, UpdateMyPassword (old password verified and counted toward lockout, other sessions and refresh tokens
// ended), SetHumanPassword and the reset mail, received by a real SMTP server.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, callRest, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken, startServerWithAdminKey } from '../helpers/tokens.ts';
import { Browser, CALLBACK, createOidcApp, pkceAuthorization, postForm } from '../helpers/oidc.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const policyCall = (body?: Record<string, unknown>): ApiCall =>
  body
    ? {
        service: AdminService,
        method: 'UpdatePasswordComplexityPolicy',
        rest: ['PUT', '/admin/v1/policies/password/complexity'],
        body,
      }
    : {
        service: AdminService,
        method: 'GetPasswordComplexityPolicy',
        rest: ['GET', '/admin/v1/policies/password/complexity'],
      };

const STRICT = { minLength: 10, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true };
const DEFAULT = { minLength: 8, hasUppercase: false, hasLowercase: false, hasNumber: false, hasSymbol: false };

describe('passwords on the management API', () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let admin: string;

  const setUpUser = async (userName: string, password: string) =>
    okJson<{ userId: string; orgId: string }>(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'SetUpOrg',
          rest: ['POST', '/admin/v1/orgs/_setup'],
          body: {
            org: { name: `Org of ${userName}` },
            human: {
              userName,
              profile: { firstName: 'Grace', lastName: 'Hopper', preferredLanguage: 'de' },
              email: { email: `${userName}@example.com` },
              password,
            },
          },
        },
        { token: admin },
      ),
    );

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
      it('reads and updates the policy; a password set anywhere must pass it, the failing rule named', async () => {
        const before = okJson<{ policy: Record<string, unknown> }>(
          await callApi(server.url, encoding, policyCall(), { token: admin }),
        );
        expect(before.policy).toMatchObject({ minLength: '8', isDefault: true });
        const tooShort = await callApi(server.url, encoding, policyCall({ ...STRICT, minLength: 4 }), { token: admin });
        expect(tooShort).toMatchObject({ ok: false, code: 3 });
        expect(tooShort.ok || tooShort.message).toMatch(/UpdatePasswordComplexityPolicyRequest\.MinLength/);
        okJson(await callApi(server.url, encoding, policyCall(STRICT), { token: admin }));
        try {
          // the same policy again: ZITADEL's "not changed"
          const again = await callApi(server.url, encoding, policyCall(STRICT), { token: admin });
          expect(again).toMatchObject({ ok: false, code: 9 });
          expect(again.ok || again.message).toBe('Password complexity policy not changed (INSTANCE-9jlsf)');
          const after = okJson<{ policy: Record<string, unknown> }>(
            await callApi(server.url, encoding, policyCall(), { token: admin }),
          );
          expect(after.policy).toMatchObject({ minLength: '10', hasUppercase: true, hasSymbol: true });
          const imported = await callApi(
            server.url,
            encoding,
            {
              service: ManagementService,
              method: 'ImportHumanUser',
              rest: ['POST', '/management/v1/users/human/_import'],
              body: {
                userName: `weak-${encoding}`,
                profile: { firstName: 'W', lastName: 'K' },
                email: { email: 'weak@example.com' },
                password: 'lowercase-only-1',
              },
            },
            { token: admin },
          );
          expect(imported).toMatchObject({ ok: false, code: 3 });
          expect(imported.ok || imported.message).toBe(
            'invalid ImportHumanUserRequest.Password: must contain an upper case letter (COMMA-VoaRj)',
          );
          const setUp = await callApi(
            server.url,
            encoding,
            {
              service: AdminService,
              method: 'SetUpOrg',
              rest: ['POST', '/admin/v1/orgs/_setup'],
              body: {
                org: { name: `Weak ${encoding}` },
                human: {
                  userName: `weak2-${encoding}`,
                  profile: { firstName: 'W', lastName: 'K' },
                  email: { email: 'weak@example.com' },
                  password: 'Short1!',
                },
              },
            },
            { token: admin },
          );
          expect(setUp.ok || setUp.message).toBe('Password must be between 10 and 1024 characters (COMMA-HuJf6)');
          // nothing was written
          const { rows } = await server.db.query('SELECT 1 FROM users WHERE user_name LIKE $1', [`weak%-${encoding}`]);
          expect(rows).toEqual([]);
        } finally {
          okJson(await callApi(server.url, encoding, policyCall(DEFAULT), { token: admin }));
        }
      });

      it('UpdateMyPassword: verifies the old password, ends other sessions and refresh tokens', async () => {
        const userName = `grace-${encoding}`;
        await setUpUser(userName, 'Old-Password-1');
        const token = await humanToken(server, userName, 'Old-Password-1');
        // a second browser signed in, holding a refresh token
        const app = await createOidcApp(server, { authMethod: 'none' });
        const other = new Browser(server);
        const { url, verifier } = await pkceAuthorization(server, app.clientId, { scope: 'openid offline_access' });
        const callback = await other.authorize(url, userName, 'Old-Password-1');
        const otherTokens = await postForm(`${server.url}/oauth/v2/token`, {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: CALLBACK,
          code_verifier: verifier,
          client_id: app.clientId,
        });
        expect(otherTokens.json.refresh_token).toBeTruthy();
        const change = (oldPassword: string, newPassword: string): ApiCall => ({
          service: AuthService,
          method: 'UpdateMyPassword',
          rest: ['PUT', '/auth/v1/users/me/password'],
          body: { oldPassword, newPassword },
        });
        const wrong = await callApi(server.url, encoding, change('not-the-password', 'New-Password-2'), { token });
        expect(wrong).toMatchObject({ ok: false, code: 3 });
        expect(wrong.ok || wrong.message).toBe('Password is invalid (COMMAND-3M0fs)');
        const failures = await server.db.query("SELECT failures FROM login_failures WHERE scope = 'account'");
        expect(failures.rows.length).toBeGreaterThan(0);
        const weak = await callApi(server.url, encoding, change('Old-Password-1', 'short'), { token });
        expect(weak.ok || weak.message).toMatch(/^invalid UpdateMyPasswordRequest\.NewPassword: must be between 8/);
        okJson(await callApi(server.url, encoding, change('Old-Password-1', 'New-Password-2'), { token }));
        // the other browser's session and refresh token are gone
        const refreshed = await postForm(`${server.url}/oauth/v2/token`, {
          grant_type: 'refresh_token',
          refresh_token: String(otherTokens.json.refresh_token),
          client_id: app.clientId,
        });
        expect(refreshed.status).toBe(400);
        const silent = await pkceAuthorization(server, app.clientId, { prompt: 'none' });
        const answer = await other.follow(String(silent.url));
        expect(new URL(answer.url).searchParams.get('error')).toBe('login_required');
        await expect(humanToken(server, userName, 'Old-Password-1')).rejects.toThrow();
        expect(await humanToken(server, userName, 'New-Password-2')).toBeTruthy();
      });

      it('SendHumanResetPasswordNotification mails a link and a code in the user language', async () => {
        const userName = `reset-${encoding}`;
        const { userId } = await setUpUser(userName, 'Reset-Password-1');
        okJson(
          await callApi(
            server.url,
            encoding,
            {
              service: ManagementService,
              method: 'SendHumanResetPasswordNotification',
              rest: ['POST', `/management/v1/users/${userId}/password/_reset`],
              body: { userId, type: 'TYPE_EMAIL' },
            },
            { token: admin, orgId: await setUpOrgOf(server, userId) },
          ),
        );
        const mail = await smtp.waitFor(`${userName}@example.com`);
        expect(mail.subject).toMatch(/Passwort zurücksetzen/);
        const { code, link } = mailCode(mail);
        expect(link).toContain(`/ui/account/password-reset?user=${userId}&code=${code}`);
        expect(mail.html).toContain(code);
        const stored = await server.db.query<{ code_hash: string }>(
          'SELECT code_hash FROM user_codes WHERE user_id = $1',
          [userId],
        );
        expect(stored.rows[0]!.code_hash).not.toContain(code);
      });
    });
  }
});

async function setUpOrgOf(server: TestServer, userId: string): Promise<string> {
  const { rows } = await server.db.query<{ org_id: string }>('SELECT org_id FROM users WHERE id = $1', [userId]);
  return rows[0]!.org_id;
}
