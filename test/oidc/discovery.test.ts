// Discovery and JWKS (OIDC Discovery 1.0 §4): ZITADEL's paths, only what is served, no RFC 8414 metadata, and URLs from
// the configured issuer whatever Host or X-Forwarded-* headers a client sends.
import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The discovery document: the lists this file compares, and any other member by name. */
interface Discovery {
  scopes_supported: string[];
  response_types_supported: string[];
  response_modes_supported: string[];
  grant_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_methods_supported: string[];
  [member: string]: unknown;
}

describe('discovery', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  it('advertises the interface endpoints and capabilities', async () => {
    const res = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as Discovery;
    const base = server.url;
    expect(d).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/v2/authorize`,
      token_endpoint: `${base}/oauth/v2/token`,
      introspection_endpoint: `${base}/oauth/v2/introspect`,
      userinfo_endpoint: `${base}/oidc/v1/userinfo`,
      revocation_endpoint: `${base}/oauth/v2/revoke`,
      end_session_endpoint: `${base}/oidc/v1/end_session`,
      jwks_uri: `${base}/oauth/v2/keys`,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'], // never "none": an unsigned token proves nothing
      prompt_values_supported: ['none', 'login', 'consent', 'select_account', 'create'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
    });
    expect(d.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'phone', 'address', 'offline_access']),
    );
    expect([...d.response_types_supported].sort()).toEqual(['code', 'id_token', 'id_token token']);
    expect([...d.response_modes_supported].sort()).toEqual(['form_post', 'fragment', 'query']);
    expect([...d.grant_types_supported].sort()).toEqual([
      'authorization_code',
      'client_credentials',
      'implicit',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    ]);
    expect([...d.token_endpoint_auth_methods_supported].sort()).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
      'private_key_jwt',
    ]);
    expect([...d.revocation_endpoint_auth_methods_supported].sort()).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
      'private_key_jwt',
    ]);
    // DPoP, device flow, registration: not part of the interface, not advertised
    for (const key of ['dpop_signing_alg_values_supported', 'device_authorization_endpoint', 'registration_endpoint']) {
      expect(d[key]).toBeUndefined();
    }
    // every advertised endpoint is served (no 404)
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'introspection_endpoint',
      'userinfo_endpoint',
      'revocation_endpoint',
      'end_session_endpoint',
      'jwks_uri',
      'pushed_authorization_request_endpoint',
    ]) {
      const posted = ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint'];
      const method = [...posted, 'pushed_authorization_request_endpoint'].includes(key) ? 'POST' : 'GET';
      const r = await fetch(d[key] as string, { method, redirect: 'manual' });
      expect([key, r.status === 404]).toEqual([key, false]);
    }
  });

  it('has no OAuth authorization server metadata and no default library routes', async () => {
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${server.url}/token`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.url}/jwks`)).status).toBe(404);
  });

  it('derives URLs from the issuer, never from Host or X-Forwarded-* headers', async () => {
    const res = await fetch(`${server.url}/.well-known/openid-configuration`, {
      headers: { 'x-forwarded-host': 'evil.example.com', 'x-forwarded-proto': 'https' },
    });
    const d = (await res.json()) as Discovery;
    expect(d.token_endpoint).toBe(`${server.url}/oauth/v2/token`);
    // over HTTP/2 (h2c) with a foreign :authority
    const session = connect(server.url);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ':path': '/.well-known/openid-configuration', ':authority': 'evil.example.com' });
        let data = '';
        req.on('data', (chunk) => {
          data += chunk;
        });
        req.on('end', () => resolve(data));
        req.on('error', reject);
      });
      expect(JSON.parse(body).token_endpoint).toBe(`${server.url}/oauth/v2/token`);
    } finally {
      session.close();
    }
  });

  it('publishes signing keys with kid, use and alg, cacheable for 5 minutes, without private members', async () => {
    const res = await fetch(`${server.url}/oauth/v2/keys`);
    expect(res.headers.get('cache-control')).toBe('max-age=300, must-revalidate');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
      expect(key.kid).toEqual(expect.any(String));
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key[member]).toBeUndefined();
    }
    // the private key is stored sealed with the master key
    const stored = (await server.db.query('SELECT private_jwk FROM signing_keys')).rows;
    for (const row of stored) {
      expect(row.private_jwk).toMatch(/^v1\./);
      expect(row.private_jwk).not.toContain('"d"');
    }
  });
});
