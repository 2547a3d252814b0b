// Login-name shadowing: a user name must never equal or shadow another user's login name (`user name@org domain`). The
// attack: self-registration as `admin@<primary domain>`, after which that text signed in the attacker instead of the
// real admin. The rule (users/user-name.ts): a user name whose part after its last `@` is an org's domain, the instance
// domain or a name under it is refused everywhere a user name is set; and the lookup resolves `name@domain` through the
// org domain first, so a shadowing name stored by an older version never wins.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByLoginName } from '../../src/users/lookup.ts';
import { CookieJar, formValue, type JarResponse } from '../helpers/cookie-jar.ts';
import { callApi, ENCODINGS, type ApiCall } from '../helpers/management.ts';
import { createOidcApp } from '../helpers/oidc.ts';
import { calls, expectError, unique } from '../helpers/provisioning.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
const RESERVED = 'id="userName-error" role="alert">This user name cannot be used';

describe('login-name shadowing', () => {
  let server: TestServer;
  let adminToken: string;
  let callback: CallbackServer;
  let rp: RelyingParty;
  let primaryDomain: string;
  let adminId: string;

  beforeAll(async () => {
    ({ server, adminToken } = await startServerWithAdminKey());
    callback = await startCallbackServer();
    const app = await createOidcApp(server, {
      appType: 'user_agent',
      authMethod: 'none',
      devMode: true,
      redirectUris: [`${callback.url}/cb`],
    });
    rp = await RelyingParty.discover(server.url, app.clientId, `${callback.url}/cb`);
    const admin = (await findUserByLoginName(server.db, 'admin'))!;
    [primaryDomain, adminId] = [admin.primary_domain, admin.id];
  });
  afterAll(async () => {
    await server?.stop();
    await callback?.close();
  });

  const begin = async (params: Record<string, string> = {}) => {
    const jar = new CookieJar();
    const page = await jar.follow((await rp.start(params)).url);
    const post = (step: string, form: Record<string, string>): Promise<JarResponse> =>
      jar.fetch(`${page.url}/${step}`, {
        method: 'POST',
        headers: { ...FORM, origin: server.url },
        body: new URLSearchParams({ csrf: formValue(page.body, 'csrf')!, ...form }).toString(),
      });
    return { post };
  };
  const count = async () =>
    (
      await server.db.query(
        'SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM events)::int AS events',
      )
    ).rows[0];

  it('the registration page refuses admin@<primary domain> (the attack), any org domain and the instance domain, writing nothing', async () => {
    const { post } = await begin({ prompt: 'create' });
    const form = { firstName: 'Mal', lastName: 'Lory', email: 'mal@example.com', password: 'attacker password 1' };
    const before = await count();
    for (const userName of [
      `admin@${primaryDomain}`,
      `ADMIN@${primaryDomain.toUpperCase()}`,
      `someone@${primaryDomain}`,
      `admin@${server.config.instanceDomain}`,
      `admin@future-org.${server.config.instanceDomain}`,
    ]) {
      const refused = await post('register', { ...form, userName });
      expect(refused.status, userName).toBe(400);
      expect(refused.body).toContain(RESERVED);
      expect(refused.body).toMatch(/id="userName"[^>]*aria-invalid="true"/);
    }
    expect(await count()).toEqual(before);
    // e-mail-like user names of other domains remain valid
    expect((await post('register', { ...form, userName: `${unique('mal')}@example.com` })).status).toBe(303);
  });

  for (const encoding of ENCODINGS) {
    it(`${encoding}: ImportHumanUser, AddMachineUser and SetUpOrg refuse a user name that is a login name, writing nothing`, async () => {
      const before = await count();
      const refused = /^invalid \w+\.UserName: must not end with @ and an organization's or the instance's domain/;
      expectError(
        await callApi(server.url, encoding, calls.importHumanUser({ userName: `admin@${primaryDomain}` }), {
          token: adminToken,
        }),
        encoding,
        3,
        refused,
      );
      expectError(
        await callApi(server.url, encoding, calls.addMachineUser({ userName: `bot@${primaryDomain}` }), {
          token: adminToken,
        }),
        encoding,
        3,
        refused,
      );
      // SetUpOrg: the new org's own domain counts as well
      const setUp = (userName: string, domain = ''): ApiCall => ({
        service: AdminService,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'],
        body: {
          org: { name: unique('Org'), domain },
          human: { userName, profile: { firstName: 'A', lastName: 'B' }, email: { email: 'a@example.com' } },
        },
      });
      expectError(
        await callApi(server.url, encoding, setUp(`boss@${primaryDomain}`), { token: adminToken }),
        encoding,
        3,
        /^invalid SetUpOrgRequest_Human\.UserName: must not end with @/,
      );
      const ownDomain = `${unique('acme')}.example`;
      expectError(
        await callApi(server.url, encoding, setUp(`boss@${ownDomain}`, ownDomain), { token: adminToken }),
        encoding,
        3,
        /^invalid SetUpOrgRequest_Human\.UserName: must not end with @/,
      );
      expect(await count()).toEqual(before);
    });
  }

  it('a shadowing user name stored by an older version never wins over the login name: the admin signs in, the attacker does not', async () => {
    // the attacker as an older version let them register: user name = the admin's login name
    const { post } = await begin({ prompt: 'create' });
    const attackerName = unique('mallory');
    expect(
      (
        await post('register', {
          firstName: 'Mal',
          lastName: 'Lory',
          email: 'mal@example.com',
          userName: attackerName,
          password: 'attacker password 1',
        })
      ).status,
    ).toBe(303);
    await server.db.query('UPDATE users SET user_name = $2 WHERE lower(user_name) = lower($1)', [
      attackerName,
      `admin@${primaryDomain}`,
    ]);

    expect((await findUserByLoginName(server.db, `admin@${primaryDomain}`))?.id).toBe(adminId);
    expect((await findUserByLoginName(server.db, `Admin@${primaryDomain.toUpperCase()}`))?.id).toBe(adminId);
    const signIn = async (loginName: string, password: string) =>
      (await (await begin()).post('password', { loginName, password })).status;
    expect(await signIn(`admin@${primaryDomain}`, ADMIN_PASSWORD)).toBe(303);
    expect(await signIn(`admin@${primaryDomain}`, 'attacker password 1')).toBe(401);
    // the stored name is reachable only unambiguously, with its own org domain appended
    expect(await signIn(`admin@${primaryDomain}@${primaryDomain}`, 'attacker password 1')).toBe(303);
  });
});
