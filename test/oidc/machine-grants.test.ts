// Service accounts, as ZITADEL's: the JWT-profile grant (RFC 7523) with the first-start key file and with
// @zitadel/node's helper, client_credentials with the generated secret, opaque and JWT access tokens, and
// verifyAccessToken.
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertion, basic, createMachine, postForm } from '../helpers/oidc.ts';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('machine user grants', () => {
  let server: TestServer;
  let token: string;
  const keyFile = join(mkdtempSync(join(tmpdir(), 'gatehouse-oidc-')), 'admin.json');

  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_ADMIN_KEY_FILE: keyFile } });
    token = `${server.url}/oauth/v2/token`;
  });
  afterAll(async () => server?.stop());

  const userinfo = (accessToken: string) =>
    fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });

  it('JWT profile with the first-start key file: tokens of the service user, no client authentication', async () => {
    const file = JSON.parse(readFileSync(keyFile, 'utf8'));
    const res = await postForm(token, {
      grant_type: JWT_BEARER,
      assertion: await assertion(file, server.url),
      scope: `openid profile ${MANAGEMENT_API_SCOPE} unknown-scope`,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.json).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'scope', 'token_type']);
    expect(res.json.token_type).toBe('Bearer');
    expect(res.json.expires_in).toBeGreaterThan(43000);
    expect(res.json.scope).toBe(`openid profile ${MANAGEMENT_API_SCOPE}`);
    expect(decodeJwt(res.json.id_token)).toMatchObject({ sub: file.userId, iss: server.url });

    const verified = await server.app.oidc.verifyAccessToken(res.json.access_token);
    expect(verified).toMatchObject({ userId: file.userId, clientId: file.userId });
    expect(verified!.scopes.has(MANAGEMENT_API_SCOPE)).toBe(true);
    expect(verified!.tokenId).not.toBe(res.json.access_token);
    expect(verified!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);

    const info = await userinfo(res.json.access_token);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({
      sub: file.userId,
      name: 'Gatehouse admin service account',
      preferred_username: 'admin-sa@gatehouse.127.0.0.1',
    });
  });

  it("@zitadel/node's service-account helper gets a management API token unchanged", async () => {
    const sa = ServiceAccount.fromJson(JSON.parse(readFileSync(keyFile, 'utf8')));
    const accessToken = await sa.authenticate(server.url, { apiAccess: true });
    const verified = await server.app.oidc.verifyAccessToken(accessToken);
    expect(verified!.scopes.has(MANAGEMENT_API_SCOPE)).toBe(true);
    expect(verified!.scopes.has('openid')).toBe(true);
  });

  it('rejects bad assertions with invalid_grant and a missing scope with invalid_request', async () => {
    const m = await createMachine(server);
    const other = await createMachine(server);
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      ['foreign key', await assertion({ ...other.keyFile, userId: m.userId }, server.url)],
      ['wrong audience', await assertion(m.keyFile, 'https://elsewhere.example.com')],
      ['iat older than an hour', await assertion(m.keyFile, server.url, {}, now - 7200)],
      ['not a JWT', 'not-a-jwt'],
      [
        'alg none',
        `${Buffer.from(JSON.stringify({ alg: 'none', kid: m.keyFile.keyId })).toString('base64url')}.` +
          `${Buffer.from(
            JSON.stringify({ iss: m.userId, sub: m.userId, aud: server.url, iat: now, exp: now + 600 }),
          ).toString('base64url')}.`,
      ],
    ];
    for (const [name, value] of cases) {
      const res = await postForm(token, { grant_type: JWT_BEARER, assertion: value, scope: 'openid' });
      expect([name, res.status, res.json?.error]).toEqual([
        name,
        400,
        name === 'not a JWT' ? 'invalid_request' : 'invalid_grant',
      ]);
    }
    const missingScope = await postForm(token, {
      grant_type: JWT_BEARER,
      assertion: await assertion(m.keyFile, server.url),
    });
    expect([missingScope.status, missingScope.json.error]).toEqual([400, 'invalid_request']);
    const withJti = await assertion(m.keyFile, server.url, { jti: 'once' });
    expect((await postForm(token, { grant_type: JWT_BEARER, assertion: withJti, scope: 'openid' })).status).toBe(200);
    const replay = await postForm(token, { grant_type: JWT_BEARER, assertion: withJti, scope: 'openid' });
    expect([replay.status, replay.json.error]).toEqual([400, 'invalid_grant']);
    // concurrent copies of one assertion: exactly one is accepted
    const racing = await assertion(m.keyFile, server.url, { jti: 'racing' });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => postForm(token, { grant_type: JWT_BEARER, assertion: racing, scope: 'openid' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(400)]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.json.error).toBe('invalid_grant');
  });

  it('client_credentials: user name + generated secret, Basic or body; tokens of the machine user, no refresh or ID token', async () => {
    const m = await createMachine(server);
    const viaBasic = await postForm(
      token,
      { grant_type: 'client_credentials', scope: 'openid profile' },
      { authorization: basic(m.userName, m.clientSecret) },
    );
    expect(viaBasic.status).toBe(200);
    expect(Object.keys(viaBasic.json).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    const viaBody = await postForm(token, {
      grant_type: 'client_credentials',
      scope: 'openid',
      client_id: m.userName,
      client_secret: m.clientSecret,
    });
    expect(viaBody.status).toBe(200);
    const info = await userinfo(viaBasic.json.access_token);
    expect(await info.json()).toMatchObject({ sub: m.userId, name: 'Service' });
    expect((await server.app.oidc.verifyAccessToken(viaBody.json.access_token))?.userId).toBe(m.userId);

    const wrong = await postForm(
      token,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(m.userName, 'wrong') },
    );
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
    // the secret is stored as a keyed hash only
    const stored = (await server.db.query('SELECT secret_hash FROM users WHERE id = $1', [m.userId])).rows[0]!
      .secret_hash;
    expect(stored).toMatch(/^hmac-sha256:/);
    expect(stored).not.toContain(m.clientSecret);
  });

  it('the token endpoint answers over cleartext HTTP/2 too (the port speaks both), without content-length', async () => {
    const m = await createMachine(server);
    const session = connect(server.url);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = session.request({
          ':path': '/oauth/v2/token',
          ':method': 'POST',
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(m.userName, m.clientSecret),
        });
        let data = '';
        req.on('data', (d) => {
          data += d;
        });
        req.on('end', () => resolve(data));
        req.on('error', reject);
        req.end('grant_type=client_credentials&scope=openid');
      });
      expect(JSON.parse(body)).toMatchObject({ token_type: 'Bearer', scope: 'openid' });
    } finally {
      session.close();
    }
  });

  it('JWT access tokens for machine users with access token type JWT: signed, usable, and the bare jti is no token', async () => {
    const m = await createMachine(server, 'jwt');
    const res = await postForm(token, {
      grant_type: JWT_BEARER,
      assertion: await assertion(m.keyFile, server.url),
      scope: `openid ${MANAGEMENT_API_SCOPE}`,
    });
    const jwks = (await (await fetch(`${server.url}/oauth/v2/keys`)).json()) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(res.json.access_token, createLocalJWKSet(jwks), {
      issuer: server.url,
      typ: 'at+jwt',
    });
    expect(protectedHeader.kid).toBe(jwks.keys[0]!.kid);
    expect(payload).toMatchObject({ sub: m.userId, client_id: m.userId, scope: `openid ${MANAGEMENT_API_SCOPE}` });
    expect(payload.aud).toContain(m.userId);
    expect((await userinfo(res.json.access_token)).status).toBe(200);
    expect((await server.app.oidc.verifyAccessToken(res.json.access_token))?.userId).toBe(m.userId);
    expect((await userinfo(String(payload.jti))).status).toBe(401);
    expect(await server.app.oidc.verifyAccessToken(String(payload.jti))).toBeUndefined();
    const tampered = res.json.access_token.slice(0, -4) + (res.json.access_token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await userinfo(tampered)).status).toBe(401);

    const cc = await postForm(
      token,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(m.userName, m.clientSecret) },
    );
    expect(decodeJwt(cc.json.access_token)).toMatchObject({ sub: m.userId, client_id: m.userName });
  });

  it('verifyAccessToken refuses revoked tokens, tokens of deactivated users and garbage', async () => {
    const m = await createMachine(server);
    const issue = async () =>
      (
        await postForm(token, {
          grant_type: JWT_BEARER,
          assertion: await assertion(m.keyFile, server.url),
          scope: 'openid',
        })
      ).json.access_token as string;
    const revoked = await issue();
    const res = await postForm(`${server.url}/oauth/v2/revoke`, { token: revoked, client_id: m.userId });
    expect(res.status).toBe(200);
    expect(await server.app.oidc.verifyAccessToken(revoked)).toBeUndefined();
    expect((await userinfo(revoked)).status).toBe(401);

    const live = await issue();
    expect(await server.app.oidc.verifyAccessToken(live)).toBeDefined();
    await server.db.query("UPDATE users SET state = 'inactive' WHERE id = $1", [m.userId]);
    expect(await server.app.oidc.verifyAccessToken(live)).toBeUndefined();
    expect(await server.app.oidc.verifyAccessToken('')).toBeUndefined();
    expect(await server.app.oidc.verifyAccessToken('a.b.c')).toBeUndefined();
  });
});
