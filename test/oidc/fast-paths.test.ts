// The endpoints Gatehouse serves itself: introspection, userinfo and the machine grants stay within their query
// budgets, concurrent token lookups share one statement without mixing up answers, and the machine grants' credential
// cache never outlives a change: a rotated secret, a new or expired key and a deactivated user take effect on the very
// next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertion, basic, createApiApp, createMachine, createProject, postForm, secrets } from '../helpers/oidc.ts';
import { addMachineUserKey, generateMachineSecret } from '../../src/users/machine-service.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('fast paths', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    token = `${server.url}/oauth/v2/token`;
  });
  afterAll(async () => server?.stop());

  /** Queries one request costs: the fewest of three tries, so a background job (key reload, sweep) cannot count. */
  async function queriesOf(request: () => Promise<{ status: number }>): Promise<number> {
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = server.db.stats.queries;
      expect((await request()).status).toBe(200);
      counts.push(server.db.stats.queries - before);
    }
    return Math.min(...counts);
  }

  it('costs one query for introspection, userinfo and a client_credentials token; two for a JWT-profile token with jti', async () => {
    const m = await createMachine(server);
    const project = await createProject(server);
    const api = await createApiApp(server, project);
    const cc = () =>
      postForm(
        token,
        { grant_type: 'client_credentials', scope: `openid profile urn:zitadel:iam:org:project:id:${project}:aud` },
        { authorization: basic(m.userName, m.clientSecret) },
      );
    const accessToken = (await cc()).json.access_token as string;

    expect(await queriesOf(cc)).toBe(1);
    expect(
      await queriesOf(() =>
        postForm(
          `${server.url}/oauth/v2/introspect`,
          { token: accessToken },
          { authorization: basic(api.clientId, api.clientSecret!) },
        ),
      ),
    ).toBe(1);
    expect(
      await queriesOf(() =>
        fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } }),
      ),
    ).toBe(1);
    expect(
      await queriesOf(async () =>
        postForm(token, { grant_type: JWT_BEARER, assertion: await assertion(m.keyFile, server.url), scope: 'openid' }),
      ),
    ).toBe(1);
    expect(
      await queriesOf(async () =>
        postForm(token, {
          grant_type: JWT_BEARER,
          assertion: await assertion(m.keyFile, server.url, { jti: crypto.randomUUID() }),
          scope: 'openid',
        }),
      ),
    ).toBe(2);
  });

  it('concurrent introspections and userinfo requests share one statement, and each gets its own answer', async () => {
    const project = await createProject(server);
    const [m1, m2, caller, outsider] = [
      await createMachine(server),
      await createMachine(server),
      await createApiApp(server, project),
      await createApiApp(server, await createProject(server)),
    ];
    const issue = async (m: typeof m1) =>
      (
        await postForm(
          token,
          { grant_type: 'client_credentials', scope: `openid urn:zitadel:iam:org:project:id:${project}:aud` },
          { authorization: basic(m.userName, m.clientSecret) },
        )
      ).json.access_token as string;
    const [t1, t2, revoked] = [await issue(m1), await issue(m2), await issue(m1)];
    expect(
      (
        await postForm(
          `${server.url}/oauth/v2/revoke`,
          { token: revoked },
          { authorization: basic(m1.userName, m1.clientSecret) },
        )
      ).status,
    ).toBe(200);

    // injected requests reach their lookups in the same event-loop turn, as concurrent requests under load do
    const introspect = (value: string, who: { clientId: string; clientSecret?: string }, secret = who.clientSecret!) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/v2/introspect',
        payload: new URLSearchParams({ token: value }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(who.clientId, secret) },
      });
    const before = server.db.stats.queries;
    const answers = await Promise.all([
      introspect(t1, caller),
      introspect(t1, caller, 'wrong-secret'),
      introspect(t2, outsider),
      introspect(revoked, caller),
      introspect('no-such-token', caller),
      introspect(t2, caller),
    ]);
    // one statement for the six (two if a background job, key reload or sweep, happened to run meanwhile)
    expect(server.db.stats.queries - before).toBeLessThanOrEqual(2);
    expect(answers.map((a) => [a.statusCode, a.json().active ?? a.json().error, a.json().sub])).toEqual([
      [200, true, m1.userId],
      [401, 'invalid_client', undefined],
      [200, false, undefined],
      [200, false, undefined],
      [200, false, undefined],
      [200, true, m2.userId],
    ]);

    const userinfo = (value: string) =>
      server.app.inject({ method: 'GET', url: '/oidc/v1/userinfo', headers: { authorization: `Bearer ${value}` } });
    const infos = await Promise.all([userinfo(t2), userinfo(revoked), userinfo(t1)]);
    expect(infos.map((i) => [i.statusCode, i.json().sub ?? i.json().error])).toEqual([
      [200, m2.userId],
      [401, 'invalid_token'],
      [200, m1.userId],
    ]);
  });

  it('concurrent machine tokens are written with one statement, each only while its own credentials hold', async () => {
    const [m1, m2] = [await createMachine(server), await createMachine(server)];
    const cc = (m: typeof m1, secret = m.clientSecret) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/v2/token',
        payload: 'grant_type=client_credentials&scope=openid',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(m.userName, secret) },
      });
    expect([(await cc(m1)).statusCode, (await cc(m2)).statusCode]).toEqual([200, 200]); // both cached now
    const before = server.db.stats.queries;
    expect((await Promise.all([cc(m1), cc(m2), cc(m1)])).map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(server.db.stats.queries - before).toBeLessThanOrEqual(2); // one statement (two if a background job ran)

    // m2's cached secret no longer holds: its write fails (and the retry with fresh credentials refuses the old
    // secret) while m1's, in the same statement, succeeds
    const { clientSecret } = await generateMachineSecret(server.db, secrets, m2, 'test');
    const answers = await Promise.all([cc(m1), cc(m2), cc(m2, clientSecret)]);
    expect(answers.map((r) => [r.statusCode, r.json().error])).toEqual([
      [200, undefined],
      [401, 'invalid_client'],
      [200, undefined],
    ]);
    const introspected = await Promise.all(
      [answers[0]!, answers[2]!].map((r) =>
        server.app.inject({
          method: 'GET',
          url: '/oidc/v1/userinfo',
          headers: { authorization: `Bearer ${r.json().access_token}` },
        }),
      ),
    );
    expect(introspected.map((r) => r.json().sub)).toEqual([m1.userId, m2.userId]);
  });

  it('a rotated secret: the old one fails and the new one works on the next request', async () => {
    const m = await createMachine(server);
    const cc = (secret: string) =>
      postForm(
        token,
        { grant_type: 'client_credentials', scope: 'openid' },
        { authorization: basic(m.userName, secret) },
      );
    expect((await cc(m.clientSecret)).status).toBe(200); // now cached
    const { clientSecret } = await generateMachineSecret(server.db, secrets, m, 'test');
    expect([(await cc(m.clientSecret)).status, (await cc(m.clientSecret)).json.error]).toEqual([401, 'invalid_client']);
    expect((await cc(clientSecret)).status).toBe(200);
  });

  it('a deactivated user gets no token on the next request, by either grant', async () => {
    const m = await createMachine(server);
    const cc = () =>
      postForm(
        token,
        { grant_type: 'client_credentials', scope: 'openid' },
        { authorization: basic(m.userName, m.clientSecret) },
      );
    const jwtProfile = async () =>
      postForm(token, { grant_type: JWT_BEARER, assertion: await assertion(m.keyFile, server.url), scope: 'openid' });
    expect((await cc()).status).toBe(200);
    expect((await jwtProfile()).status).toBe(200);
    await server.db.query("UPDATE users SET state = 'inactive' WHERE id = $1", [m.userId]);
    // the deactivated machine user is no client any more (clients.ts)
    expect([(await cc()).status, (await jwtProfile()).status]).toEqual([401, 401]);
  });

  it('a key added after the keys were cached signs at once; an expired key stops at once', async () => {
    const m = await createMachine(server);
    const jwtProfile = async (keyFile: typeof m.keyFile) =>
      postForm(token, { grant_type: JWT_BEARER, assertion: await assertion(keyFile, server.url), scope: 'openid' });
    expect((await jwtProfile(m.keyFile)).status).toBe(200); // the user's keys are cached now
    const { keyFile } = await addMachineUserKey(server.db, m, undefined, 'test');
    expect((await jwtProfile(keyFile)).status).toBe(200);
    await server.db.query('UPDATE machine_keys SET expires_at = now() WHERE id = $1', [m.keyFile.keyId]);
    const expired = await jwtProfile(m.keyFile);
    expect([expired.status, expired.json.error]).toEqual([400, 'invalid_grant']);
    expect((await jwtProfile(keyFile)).status).toBe(200);
  });
});
