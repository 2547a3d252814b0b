// Cross-tenant client impersonation: a machine user named exactly like another organization's app client ID
// (`<appId>@<projectId>`). Such names are refused wherever a user name is set; and a colliding name already in the
// database (written directly here, as an older version accepted it) gets tokens that never resolve as the app: not at
// introspection, not in a JWT's audience, not at revocation, and never against the app's per-client rate limit.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMachineUser, generateMachineSecret } from '../../src/users/machine-service.ts';
import type { TestServer } from '../helpers/server.ts';
import { callApi, ENCODINGS } from '../helpers/management.ts';
import { calls, expectError, unique } from '../helpers/provisioning.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import {
  basic,
  createApiApp,
  createMachine,
  createOidcApp,
  createOrg,
  postForm,
  secrets,
  userTokens,
  type TestApp,
} from '../helpers/oidc.ts';

const PER_CLIENT = 4;

describe('client impersonation by machine user names', () => {
  let server: TestServer;
  let adminToken: string;
  let victim: TestApp;
  let attackerOrg: string;

  beforeAll(async () => {
    // per-client limits on for loopback (the test server exempts it by default)
    ({ server, adminToken } = await startServerWithAdminKey({
      GATEHOUSE_RATE_LIMIT_PER_CLIENT: String(PER_CLIENT),
      GATEHOUSE_RATE_LIMIT_EXEMPT: '192.0.2.1',
    }));
    victim = await createOidcApp(server); // in the first org
    attackerOrg = await createOrg(server, unique('Attacker'));
  });
  afterAll(async () => server?.stop());

  for (const encoding of ENCODINGS) {
    it(`${encoding}: AddMachineUser, ImportHumanUser and SetUpOrg refuse a user name of the form of a client ID, writing nothing`, async () => {
      const before = (await server.db.query('SELECT count(*)::int AS n FROM users')).rows[0]!.n;
      const refused = /^invalid \w+\.UserName: must not have the form of an app's client ID/;
      expectError(
        await callApi(server.url, encoding, calls.addMachineUser({ userName: victim.clientId }), {
          token: adminToken,
          orgId: attackerOrg,
        }),
        encoding,
        3,
        refused,
      );
      expectError(
        await callApi(server.url, encoding, calls.importHumanUser({ userName: victim.clientId }), {
          token: adminToken,
          orgId: attackerOrg,
        }),
        encoding,
        3,
        refused,
      );
      const setUp = {
        service: calls.addIamMember('1').service,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'] as [string, string],
        body: {
          org: { name: unique('Org') },
          human: { userName: '123@456', profile: { firstName: 'A', lastName: 'B' }, email: { email: 'a@example.com' } },
        },
      };
      expectError(
        await callApi(server.url, encoding, setUp, { token: adminToken }),
        encoding,
        3,
        /^invalid SetUpOrgRequest_Human\.UserName: must not have the form of an app's client ID/,
      );
      expect((await server.db.query('SELECT count(*)::int AS n FROM users')).rows[0]!.n).toBe(before);
      // a name that merely contains digits and @ elsewhere is fine
      expect(
        (
          await callApi(server.url, encoding, calls.addMachineUser({ userName: `${unique('job')}@2x` }), {
            token: adminToken,
            orgId: attackerOrg,
          })
        ).ok,
      ).toBe(true);
    });
  }

  it('a colliding name stored by an older version: its tokens never resolve as the app, and the app keeps its rate limit', async () => {
    // the attacker's machine user, renamed in the database to the victim app's client ID, with a JWT access token type
    const { userId } = await addMachineUser(
      server.db,
      { orgId: attackerOrg, userName: unique('legacy'), name: 'Legacy', accessTokenType: 'jwt' },
      'test',
    );
    await server.db.query('UPDATE users SET user_name = $2 WHERE id = $1', [userId, victim.clientId]);
    const { clientSecret } = await generateMachineSecret(server.db, secrets, { orgId: attackerOrg, userId }, 'test');
    const token = `${server.url}/oauth/v2/token`;
    const asAttacker = { authorization: basic(victim.clientId, clientSecret) };
    const issue = () => postForm(token, { grant_type: 'client_credentials', scope: 'openid' }, asAttacker);

    const first = await issue();
    expect(first.status).toBe(200);
    const claims = decodeJwt(first.json.access_token);
    // the token is the attacker's: its subject and audience are the machine user's ID, never the app or its project
    expect(claims).toMatchObject({ sub: userId, aud: [userId] });
    expect(claims.aud).not.toContain(victim.projectId);
    // the attacker's budget is its own: it runs out...
    for (let i = 1; i < PER_CLIENT; i++) expect((await issue()).status).toBe(200);
    expect((await issue()).status).toBe(429);

    // ...while the app's is untouched: the victim's code exchange and its introspection succeed
    const tokens = await userTokens(server, victim, 'openid');
    const introspect = (value: string, app: TestApp) =>
      postForm(
        `${server.url}/oauth/v2/introspect`,
        { token: value },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
    const seen = await introspect(first.json.access_token, victim);
    expect(seen.status).toBe(200);
    // the app does not see the attacker's token as one issued to it
    expect(seen.json).toEqual({ active: false });
    // nor does an API app of the victim's project
    expect((await introspect(first.json.access_token, await createApiApp(server, victim.projectId))).json).toEqual({
      active: false,
    });
    // the victim's own token is still active for it
    expect((await introspect(tokens.access_token, victim)).json).toMatchObject({
      active: true,
      client_id: victim.clientId,
    });
    // the token works as the attacker's own at userinfo
    const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${first.json.access_token}` },
    });
    expect([info.status, ((await info.json()) as { sub: string }).sub]).toEqual([200, userId]);
    // and the app cannot revoke it as its own (nor can it be mistaken for the app's at revocation)
    const revoked = await postForm(
      `${server.url}/oauth/v2/revoke`,
      { token: first.json.access_token },
      { authorization: basic(victim.clientId, victim.clientSecret!) },
    );
    expect(revoked.status).toBe(401);
    expect(
      (
        await fetch(`${server.url}/oidc/v1/userinfo`, {
          headers: { authorization: `Bearer ${first.json.access_token}` },
        })
      ).status,
    ).toBe(200);
  });

  it('a machine user still revokes its own client_credentials token', async () => {
    const machine = await createMachine(server);
    const issued = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(machine.userName, machine.clientSecret) },
    );
    const revoked = await postForm(
      `${server.url}/oauth/v2/revoke`,
      { token: issued.json.access_token },
      { authorization: basic(machine.userName, machine.clientSecret) },
    );
    expect(revoked.status).toBe(200);
    expect(
      (
        await fetch(`${server.url}/oidc/v1/userinfo`, {
          headers: { authorization: `Bearer ${issued.json.access_token}` },
        })
      ).status,
    ).toBe(401);
  });
});
