// The grants users' apps make all day: the code exchange and the refresh token grant cost two statements each
// (fast/user-grants.ts), with the same tokens oidc-provider issues for the requests the fast path leaves to it, and the
// fast path's checks hold: client authentication, PKCE, a revoked grant, a deactivated user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { hashId } from '../../src/oidc/payloads.ts';
import { REDEEM_SQL } from '../../src/oidc/queries.ts';
import { keptAndCurrentPlans } from '../helpers/explain.ts';
import {
  basic,
  Browser,
  CALLBACK,
  createOidcApp,
  pkceAuthorization,
  postForm,
  userTokens,
  type TestApp,
} from '../helpers/oidc.ts';

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as object;

describe('code exchange and refresh', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '3600000',
        GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: '3600000',
        GATEHOUSE_MAIL_POLL_MS: '3600000',
      },
    });
    token = `${server.url}/oauth/v2/token`;
  });
  afterAll(async () => server?.stop());

  async function counted<T>(step: () => Promise<T>): Promise<{ result: T; queries: number; planned: number }> {
    const { queries, planned } = server.db.stats;
    const result = await step();
    return { result, queries: server.db.stats.queries - queries, planned: server.db.stats.planned - planned };
  }

  async function code(app: TestApp, browser: Browser, scope = 'openid offline_access') {
    const { url, verifier } = await pkceAuthorization(server, app.clientId, { scope });
    const callback = await browser.authorize(url);
    return { code: callback.searchParams.get('code')!, verifier };
  }

  const refresh = (app: TestApp, refreshToken: string, extra: Record<string, string> = {}) =>
    postForm(
      token,
      { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );

  it('a code exchange and a refresh cost two statements each', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const minted = await code(app, new Browser(server));
    const exchange = await counted(() =>
      postForm(
        token,
        { grant_type: 'authorization_code', code: minted.code, redirect_uri: CALLBACK, code_verifier: minted.verifier },
        { authorization: basic(app.clientId, app.clientSecret!) },
      ),
    );
    expect(exchange.result.status).toBe(200);
    expect(exchange.queries).toBe(2);
    expect(exchange.planned).toBe(1); // the redeem: see 'plans each redeem for its values'
    let refreshToken = exchange.result.json.refresh_token as string;
    for (let i = 0; i < 3; i++) {
      const refreshed = await counted(() => refresh(app, refreshToken));
      expect(refreshed.result.status).toBe(200);
      expect(refreshed.queries).toBe(2);
      expect(refreshed.planned).toBe(1);
      refreshToken = refreshed.result.json.refresh_token as string;
    }
  });

  it('issues what oidc-provider issues: the same response members, ID token claims and stored token rows', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid profile offline_access');
    // a scope parameter (down-scoping, here to the same scopes) is left to the provider
    const byProvider = await refresh(app, tokens.refresh_token!, { scope: 'openid profile offline_access' });
    const fast = await counted(() => refresh(app, byProvider.json.refresh_token as string));
    expect(fast.queries).toBe(2);
    expect(Object.keys(fast.result.json).sort()).toEqual(Object.keys(byProvider.json).sort());
    expect(fast.result.json.scope).toBe(byProvider.json.scope);
    expect(Object.keys(claimsOf(fast.result.json.id_token as string)).sort()).toEqual(
      Object.keys(claimsOf(byProvider.json.id_token as string)).sort(),
    );
    const { rows } = await server.db.query<{ model: string; payload: Record<string, unknown> }>(
      `SELECT model, payload FROM oidc_payloads WHERE model IN ('AccessToken', 'RefreshToken')
         AND payload->>'clientId' = $1 ORDER BY updated_at`,
      [app.clientId],
    );
    // code exchange (AT, RT), the provider's refresh (RT, AT), the fast refresh (its RT and AT come back together)
    const [, , providerRt, providerAt, ...fastRows] = rows;
    const shape = (row?: { payload: Record<string, unknown> }) => {
      const { iat: _iat, exp: _exp, ...rest } = row!.payload;
      return rest;
    };
    const fastAt = fastRows.find((r) => r.model === 'AccessToken');
    const fastRt = fastRows.find((r) => r.model === 'RefreshToken');
    expect(shape(fastAt)).toEqual(shape(providerAt));
    expect({ ...shape(fastRt), rotations: 1 }).toEqual(shape(providerRt));
    expect(fastRt!.payload.rotations).toBe(2);
  });

  it('refuses what the provider refuses: wrong secret, wrong verifier, a revoked grant, a deactivated user', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const other = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const minted = await code(app, browser);
    const exchange = (verifier: string, authorization = basic(app.clientId, app.clientSecret!)) =>
      postForm(
        token,
        { grant_type: 'authorization_code', code: minted.code, redirect_uri: CALLBACK, code_verifier: verifier },
        { authorization },
      );
    expect((await exchange(minted.verifier, basic(app.clientId, 'wrong'))).status).toBe(401);
    expect((await exchange(minted.verifier, basic(other.clientId, other.clientSecret!))).json.error).toBe(
      'invalid_grant',
    );
    expect((await exchange(`${minted.verifier.slice(0, -1)}x`)).json.error).toBe('invalid_grant');

    const tokens = await userTokens(server, app, 'openid offline_access', browser);
    expect((await refresh(app, tokens.refresh_token!, {})).status).toBe(200);
    const second = await userTokens(server, app, 'openid offline_access', new Browser(server));
    await postForm(
      `${server.url}/oauth/v2/revoke`,
      { token: second.refresh_token! },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect((await refresh(app, second.refresh_token!)).json.error).toBe('invalid_grant');

    const third = await userTokens(server, app, 'openid offline_access', new Browser(server));
    const userId = (claimsOf(third.id_token) as { sub: string }).sub;
    await server.db.query(`UPDATE users SET state = 'inactive' WHERE id = $1`, [userId]);
    try {
      expect((await refresh(app, third.refresh_token!)).json.error).toBe('invalid_grant');
    } finally {
      await server.db.query(`UPDATE users SET state = 'active' WHERE id = $1`, [userId]);
    }
  });

  /** REDEEM_SQL's parameters for redemptions of a fresh refresh token, each writing tokens named by its number. */
  async function redemptions() {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid offline_access');
    const { rows } = await server.db.query<{ grant_id: string }>(
      `SELECT grant_id FROM oidc_payloads WHERE model = 'RefreshToken' AND id = $1`,
      [hashId(tokens.refresh_token!)],
    );
    const redemption = (n: number) => [
      'RefreshToken',
      hashId(tokens.refresh_token!),
      rows[0]!.grant_id,
      hashId(`new refresh token ${n}`),
      { kind: 'RefreshToken' },
      60,
      hashId(`new access token ${n}`),
      { kind: 'AccessToken' },
      60,
    ];
    const columns = (batch: unknown[][]) => batch[0]!.map((_, c) => batch.map((r) => r[c]));
    return { redemption, columns };
  }

  it('a refresh token is redeemed once, also when two redemptions read it unconsumed (one statement or two)', async () => {
    const { redemption, columns } = await redemptions();
    // two redemptions in one statement: the first wins
    expect((await server.db.query(REDEEM_SQL, columns([redemption(1), redemption(2)]))).rows).toEqual([{ i: '1' }]);
    // and a later statement finds it consumed
    expect((await server.db.query(REDEEM_SQL, columns([redemption(3)]))).rowCount).toBe(0);
    const written = await server.db.query(`SELECT 1 FROM oidc_payloads WHERE id = ANY($1)`, [
      [1, 2, 3].flatMap((n) => [hashId(`new refresh token ${n}`), hashId(`new access token ${n}`)]),
    ]);
    expect(written.rowCount).toBe(2);
  });

  it('plans each redeem for its values: a plan kept from a small table reads the grown table whole', async () => {
    if (server.db.kind !== 'postgres') return; // PGlite: every statement is unnamed, and planned for its values anyway
    const { redemption, columns } = await redemptions();
    const plans = await keptAndCurrentPlans(
      server.db,
      REDEEM_SQL,
      columns([redemption(1)]),
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at)
       SELECT model, model || n, '{}', 'grown-' || n, now() + interval '1 hour'
       FROM generate_series(1, 20000) AS n, unnest(ARRAY['Grant', 'RefreshToken', 'AccessToken']) AS model`,
    );
    expect(plans.kept).toBe(plans.made);
    // a scan of the table, or of every Grant row's index entry, per statement
    const whole = /Seq Scan on oidc_payloads|Cond: \(model = 'Grant'::text\)/;
    expect(plans.kept).toMatch(whole);
    // planned for its values: each source by its key, and its grant by its one row (migrations/0200)
    expect(plans.now).toMatch(
      /Index Scan using oidc_payloads_pkey on oidc_payloads t .*\n\s+Index Cond: \(\(model = f\.model\)/,
    );
    expect(plans.now).toMatch(
      /Index Scan using oidc_payloads_grant_row_idx on oidc_payloads g .*\n\s+Index Cond: \(grant_id = f\.grant_id\)/,
    );
    expect(plans.now).not.toMatch(whole);
  });
});
