// A machine user's personal access token as a bearer token: userinfo, introspection (any authenticated API client may
// introspect it, as in ZITADEL) and the management API; and its four stop conditions, each ending the very next
// request at all three: removal, expiry, and its user locked, deactivated or removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, createApiApp, createMachine, createProject, postForm, type TestApp } from '../helpers/oidc.ts';
import { addPersonalAccessToken, removePersonalAccessToken } from '../../src/users/personal-access-tokens.ts';
import { changeUserState } from '../../src/users/state.ts';
import { removeUser } from '../../src/members/remove-user.ts';
import { PERSONAL_ACCESS_TOKEN_SCOPES } from '../../src/oidc/scopes.ts';

describe('personal access tokens as bearer tokens', () => {
  let server: TestServer;
  let api: TestApp;
  beforeAll(async () => {
    server = await startTestServer();
    api = await createApiApp(server, await createProject(server));
  });
  afterAll(async () => server?.stop());

  const newPat = async () => {
    const machine = await createMachine(server);
    const ref = { orgId: machine.orgId, userId: machine.userId };
    const scopes = PERSONAL_ACCESS_TOKEN_SCOPES;
    const { token, tokenId } = await addPersonalAccessToken(server.db, ref, { expiresAt: undefined, scopes }, 'test');
    return { ...machine, ref, token, tokenId };
  };
  const userinfo = (token: string) =>
    fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  const introspect = (token: string, app = api) =>
    postForm(`${server.url}/oauth/v2/introspect`, { token }, { authorization: basic(app.clientId, app.clientSecret!) });
  const myUser = (token: string) =>
    fetch(`${server.url}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
  /** What the three consumers answer for the token: userinfo's status, introspection's active, the API's status. */
  const answers = async (token: string) => [
    (await userinfo(token)).status,
    (await introspect(token)).json.active,
    (await myUser(token)).status,
  ];
  const WORKS = [200, true, 200];
  const STOPPED = [401, false, 401];

  it('answers userinfo and introspection as its machine user; any API client may introspect it', async () => {
    const pat = await newPat();
    const info = await userinfo(pat.token);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ sub: pat.userId, 'urn:zitadel:iam:user:resourceowner:id': pat.orgId });

    const other = await createApiApp(server, await createProject(server));
    for (const caller of [api, other]) {
      const res = await introspect(pat.token, caller);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        active: true,
        sub: pat.userId,
        client_id: pat.userId,
        username: expect.stringMatching(new RegExp(`^${pat.userName}@`)),
        jti: pat.tokenId,
        token_type: 'Bearer',
        exp: Date.UTC(9999, 11, 31, 23, 59, 59) / 1000,
      });
      expect(res.json.aud).toEqual(expect.arrayContaining([caller.clientId, caller.projectId]));
      expect(String(res.json.scope).split(' ')).toEqual(PERSONAL_ACCESS_TOKEN_SCOPES);
    }
    // only an authenticated client: a wrong secret is 401 invalid_client
    const wrong = await postForm(
      `${server.url}/oauth/v2/introspect`,
      { token: pat.token },
      { authorization: basic(api.clientId, 'wrong') },
    );
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
    expect(await answers(pat.token)).toEqual(WORKS);
    // a token of the same form that was never issued
    expect(await answers(`${pat.token.slice(0, -4)}AAAA`)).toEqual(STOPPED);
  });

  it('stops at once when removed', async () => {
    const pat = await newPat();
    expect(await answers(pat.token)).toEqual(WORKS);
    await removePersonalAccessToken(server.db, pat.ref, pat.tokenId, 'test');
    expect(await answers(pat.token)).toEqual(STOPPED);
  });

  it('stops at once when it expires', async () => {
    const pat = await newPat();
    expect(await answers(pat.token)).toEqual(WORKS);
    // its expiration date reached (the clock moved on)
    await server.db.query("UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [
      pat.tokenId,
    ]);
    expect(await answers(pat.token)).toEqual(STOPPED);
  });

  for (const change of ['lock', 'deactivate'] as const) {
    it(`stops at once when its user is ${change === 'lock' ? 'locked' : 'deactivated'}, and works again when the user is back`, async () => {
      const pat = await newPat();
      expect(await answers(pat.token)).toEqual(WORKS);
      await changeUserState(server.db, pat.ref, change, 'test');
      expect(await answers(pat.token)).toEqual(STOPPED);
      await changeUserState(server.db, pat.ref, change === 'lock' ? 'unlock' : 'reactivate', 'test');
      expect(await answers(pat.token)).toEqual(WORKS);
    });
  }

  it('stops at once when its user is removed, and goes with the user', async () => {
    const pat = await newPat();
    expect(await answers(pat.token)).toEqual(WORKS);
    await removeUser(server.db, pat.ref, 'test');
    expect(await answers(pat.token)).toEqual(STOPPED);
    const { rows } = await server.db.query('SELECT 1 FROM personal_access_tokens WHERE id = $1', [pat.tokenId]);
    expect(rows).toEqual([]);
  });
});
