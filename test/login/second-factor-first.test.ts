// Second factors in the sign-in, on the real login pages (HTTP with cookies, openid-client as the app): second-factor
// failures are counted apart from password failures, a correct password does not reset them, and they lock like
// password failures (the lockout policy's maxOtpAttempts); nothing lasting (a linked JWT IdP identity, a new password,
// an ended session) is written before the second factor is given; and a sign-in the project checks refuse is answered
// once, with the refusal page.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRest, okJson } from '../helpers/management.ts';
import { createOidcApp, defaultOrgId, pkceAuthorization } from '../helpers/oidc.ts';
import { startJwtIssuer, type JwtIssuer } from '../helpers/jwt-issuer.ts';
import { TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { findLinkedUserId, linkIdentity } from '../../src/idps/links.ts';
import { addIdpToLoginPolicy } from '../../src/idps/login-policy.ts';
import { addProject, updateProject } from '../../src/projects/service.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';
import { enrollOtp } from '../../src/factors/otp.ts';
import { newTotpSecret } from '../../src/factors/totp.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import * as OTPAuth from 'otpauth';
import { addUser, addUserWithOtp, nextCode, PASSWORD, relyingParty, SignIn, wrongCode } from '../factors/helpers.ts';

const HEADER = 'x-auth-jwt';

describe('the second factor comes first, and counts on its own', () => {
  let server: TestServer;
  let admin: string;
  let issuer: JwtIssuer;
  let rp: Awaited<ReturnType<typeof relyingParty>>;

  beforeAll(async () => {
    // the default budgets (5 per account), the JWT IdP's keys served on loopback
    ({ server, adminToken: admin } = await startServerWithAdminKey({ GATEHOUSE_ALLOW_PRIVATE_FETCH: 'true' }));
    issuer = await startJwtIssuer();
    rp = await relyingParty(server);
  });
  afterAll(async () => {
    await issuer?.close();
    await server?.stop();
  });

  async function signIn(userName: string, password = PASSWORD) {
    const step = await new SignIn(server).start((await rp.start()).url);
    return step.password(userName, password);
  }

  const userIdOf = async (userName: string) => (await findUserByLoginName(server.db, userName))!.id;

  let idp: Promise<string> | undefined;
  /** A JWT IdP on the login policy, without autoRegister. */
  const jwtIdp = () => {
    idp ??= (async () => {
      const instanceId = (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
      const { idpId } = await addJwtIdp(
        server.db,
        instanceId,
        {
          name: 'Legacy',
          stylingType: 'STYLING_TYPE_UNSPECIFIED',
          autoRegister: false,
          // the proxy in front of the IdP: the test forwards for it, adding the header
          jwtEndpoint: 'http://127.0.0.1:9/forward',
          issuer: issuer.issuer,
          keysEndpoint: issuer.keysUrl,
          headerName: HEADER,
        },
        'test',
      );
      await addIdpToLoginPolicy(server.db, { instanceId, idpId, editor: 'test' });
      return idpId;
    })();
    return idp;
  };

  /** A sign-in that starts with the "Continue with" button: the IdP's proxy forwards with the user's JWT. */
  async function viaIdp(sub: string, params: Record<string, string> = {}) {
    const idpId = await jwtIdp();
    const start = await rp.start(params);
    const step = await new SignIn(server).start(start.url);
    const atProxy = new URL((await step.browser.follow(`${step.loginUrl}/idp/${idpId}`)).url);
    const forwarded = await step.browser.follow(`${server.url}/ui/login/login/jwt/authorize${atProxy.search}`, {
      headers: { [HEADER]: `Bearer ${await issuer.sign({ sub })}` },
    });
    step.page = await forwarded.response.text();
    return { step, page: step.page, verifier: start.verifier };
  }

  it('6 wrong codes over 3 rounds of the right password lock (429, Retry-After); the right code is then refused', async () => {
    const { userName, totp } = await addUserWithOtp(server, 'rounds');
    const rounds: number[][] = [];
    let step!: SignIn;
    for (let round = 0; round < 3; round++) {
      step = await signIn(userName);
      const statuses = [step.status];
      for (let i = 0; i < 2; i++) {
        await step.post('second-factor', { code: wrongCode(totp) });
        statuses.push(step.status);
      }
      rounds.push(statuses);
    }
    // the fifth wrong code (GATEHOUSE_LOCKOUT_MAX_ATTEMPTS) locks, though the password was right in every round
    expect(rounds).toEqual([
      [200, 401, 401],
      [200, 401, 401],
      [200, 429, 429],
    ]);
    await step.post('second-factor', { code: nextCode(totp) });
    expect(step.status).toBe(429);
    expect(Number(step.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(step.page).toContain('Too many failed attempts');
    expect(step.callback).toBeUndefined();
    // the account is locked as a whole: the password is not checked either
    expect((await signIn(userName)).status).toBe(429);
  });

  it('a correct code resets the count of wrong codes', async () => {
    const { userName, totp } = await addUserWithOtp(server, 'reset');
    const first = await signIn(userName);
    for (const _ of [1, 2]) await first.post('second-factor', { code: wrongCode(totp) });
    await first.post('second-factor', { code: nextCode(totp) });
    expect(first.callback?.searchParams.get('code')).toBeTruthy();
    const statuses: number[] = [];
    for (const _ of [1, 2]) {
      const step = await signIn(userName);
      for (const __ of [1, 2]) {
        await step.post('second-factor', { code: wrongCode(totp) });
        statuses.push(step.status);
      }
    }
    // without the reset the third of these would be the fifth wrong code in a row
    expect(statuses).toEqual([401, 401, 401, 401]);
  });

  it('"no account linked": the JWT IdP identity is linked only once the second factor is given', async () => {
    const idpId = await jwtIdp();
    const { userName, totp } = await addUserWithOtp(server, 'linker');
    const userId = await userIdOf(userName);

    /** "No account linked", then the password. */
    async function passwordAfterIdp(sub: string) {
      const { step, page } = await viaIdp(sub);
      expect(page).toContain('No account linked');
      await step.password(userName);
      expect(step.page).toContain('autocomplete="one-time-code"');
      return step;
    }

    // the password alone, the code page abandoned or answered wrong: no link
    const abandoned = await passwordAfterIdp('ext-abandoned');
    expect(await findLinkedUserId(server.db, idpId, 'ext-abandoned')).toBeNull();
    await abandoned.post('second-factor', { code: wrongCode(totp) });
    expect(abandoned.status).toBe(401);
    expect(await findLinkedUserId(server.db, idpId, 'ext-abandoned')).toBeNull();

    // with the right code the sign-in completes, and then the identity is linked
    const completed = await passwordAfterIdp('ext-completed');
    expect(await findLinkedUserId(server.db, idpId, 'ext-completed')).toBeNull();
    await completed.post('second-factor', { code: nextCode(totp) });
    expect(completed.callback?.searchParams.get('code')).toBeTruthy();
    expect(await findLinkedUserId(server.db, idpId, 'ext-completed')).toBe(userId);
    expect(await findLinkedUserId(server.db, idpId, 'ext-abandoned')).toBeNull();

    // a user without a second factor: the password completes the sign-in, and links in the same request
    const plainName = await addUser(server, 'plain-linker');
    const plain = await viaIdp('ext-plain');
    expect(plain.page).toContain('No account linked');
    await plain.step.password(plainName);
    expect(plain.step.callback?.searchParams.get('code')).toBeTruthy();
    expect(await findLinkedUserId(server.db, idpId, 'ext-plain')).toBe(await userIdOf(plainName));
  });

  it('a temporary password leads to the second factor first: without the code nothing changes', async () => {
    const orgId = await defaultOrgId(server);
    // enrolled as the login does it under forceMfa, which hands out recovery codes
    const userName = await addUser(server, 'temporary');
    const userId = await userIdOf(userName);
    const secret = newTotpSecret();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const factors = { db: server.db, secrets: createSecretBox(TEST_MASTER_KEY), config: server.config };
    const enrolled = await enrollOtp(factors, userId, secret, totp.generate(), '127.0.0.1');
    if (!enrolled.ok) throw new Error('enrollment failed');
    const idpId = await jwtIdp();
    await server.db.tx((tx) =>
      linkIdentity(tx, userId, orgId, { idpId, externalUserId: `ext-${userName}`, displayName: userName }),
    );
    okJson(
      await callRest(
        server.url,
        {
          service: ManagementService,
          method: 'SetHumanPassword',
          rest: ['POST', `/management/v1/users/${userId}/password`],
          body: { userId, password: 'Temporary-Password-1', noChangeRequired: false },
        },
        { token: admin },
      ),
    );
    const stored = async () =>
      (
        await server.db.query<{ password_hash: string; password_change_required: boolean }>(
          'SELECT password_hash, password_change_required FROM users WHERE id = $1',
          [userId],
        )
      ).rows[0]!;
    const before = await stored();
    // the owner signs in with the IdP and a recovery code (no password asked), after the administrator's change
    const owner = await viaIdp(`ext-${userName}`, { scope: `openid ${MANAGEMENT_API_SCOPE}` });
    await owner.step.post('second-factor', { use: 'recovery' });
    await owner.step.post('second-factor', { code: enrolled.recoveryCodes[0]! });
    const { accessToken } = await rp.finish(owner.step.callback!, owner.verifier);
    const session = () =>
      callRest(
        server.url,
        { service: AuthService, method: 'GetMyUser', rest: ['GET', '/auth/v1/users/me'] },
        { token: accessToken },
      );
    expect((await session()).status).toBe(200);

    const step = await signIn(userName, 'Temporary-Password-1');
    expect(step.status).toBe(200);
    expect(step.page).toContain('autocomplete="one-time-code"');
    expect(step.page).not.toContain('name="newPassword"');
    // the change page refuses the code page's ticket, and no ticket at all
    for (const ticket of [undefined, '']) {
      const attempt = await signIn(userName, 'Temporary-Password-1');
      await attempt.post('password-change', { newPassword: 'Chosen-Password-2' }, ticket);
      expect(attempt.status).toBe(400);
      expect(attempt.callback).toBeUndefined();
    }
    await step.post('second-factor', { code: wrongCode(totp) });
    expect(step.status).toBe(401);
    expect(await stored()).toEqual(before);
    expect(before.password_change_required).toBe(true);
    expect((await session()).status).toBe(200);

    // with the code, the change page; the new password then completes the sign-in (and ends the other sessions)
    await step.post('second-factor', { code: nextCode(totp) });
    expect(step.status).toBe(200);
    expect(step.page).toContain('name="newPassword"');
    expect(step.callback).toBeUndefined();
    await step.post('password-change', { newPassword: 'Chosen-Password-2' });
    expect(step.callback?.searchParams.get('code')).toBeTruthy();
    expect((await stored()).password_change_required).toBe(false);
    expect((await session()).status).toBe(401);
  });

  it('a project role check refuses a password login with one answer: the refusal page, no second reply', async () => {
    const orgId = await defaultOrgId(server);
    const { projectId } = await addProject(server.db, { orgId, name: `checked-${Date.now()}` }, 'test');
    await updateProject(
      server.db,
      { orgId, projectId },
      { name: `checked-${projectId}`, projectRoleAssertion: false, projectRoleCheck: true, hasProjectCheck: false },
      'test',
    );
    const app = await createOidcApp(server, { authMethod: 'none' }, projectId);
    const userName = await addUser(server, 'ungranted');
    const logged = server.logs.length;
    const step = await new SignIn(server).start((await pkceAuthorization(server, app.clientId)).url);
    await step.password(userName);
    expect(step.status).toBe(403);
    expect(step.page).toContain('you have not been granted a role in its project');
    expect(step.callback).toBeUndefined();
    // the page's button completes the authorization with access_denied to the app
    const continued = await step.browser.follow(
      /href="([^"]*authorize[^"]*)"/.exec(step.page)![1]!.replaceAll('&amp;', '&'),
    );
    expect(new URL(continued.url).searchParams.get('error')).toBe('access_denied');
    const lines = server.logs.slice(logged).join('');
    expect(lines).not.toContain('Reply was already sent');
    expect(lines).not.toContain('"level":50');
  });

  it("the lockout policy's maxOtpAttempts is the budget of wrong codes, apart from maxPasswordAttempts", async () => {
    okJson(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'UpdateLockoutPolicy',
          rest: ['PUT', '/admin/v1/policies/password/lockout'],
          body: { maxPasswordAttempts: 5, maxOtpAttempts: 2 },
        },
        { token: admin },
      ),
    );
    const { userName, totp } = await addUserWithOtp(server, 'budget');
    const step = await signIn(userName);
    const statuses: number[] = [];
    for (const _ of [1, 2]) {
      await step.post('second-factor', { code: wrongCode(totp) });
      statuses.push(step.status);
    }
    expect(statuses).toEqual([401, 429]);
  });
});
