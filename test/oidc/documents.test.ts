// Discovery and JWKS served from answers rendered once per provider build (src/oidc/provider/documents.ts): the same
// bytes and headers as the provider's own answer, the provider's CORS behaviour, and a new JWKS as soon as keys
// change.
import { connect } from 'node:http2';
import { inject } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKeys } from '../../src/oidc/keys.ts';
import { secrets } from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const DISCOVERY = '/.well-known/openid-configuration';
const JWKS = '/oauth/v2/keys';
// Per response or per connection, and our own request ID: not part of a document.
const VARYING = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id']);

/** The current provider's own answer, with the headers the edge sets before handing a request over. */
async function providerAnswer(server: TestServer, path: string) {
  const { host } = new URL(server.url);
  const res = await inject(server.app.oidc.provider().callback() as never, {
    method: 'GET',
    url: path,
    headers: { host, 'x-forwarded-proto': 'http' },
  });
  return { status: res.statusCode, headers: comparable(res.headers as Record<string, unknown>), body: res.payload };
}

function comparable(headers: Record<string, unknown> | Headers): Record<string, string> {
  const entries =
    headers instanceof Headers ? [...headers] : Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]);
  return Object.fromEntries(entries.filter(([k]) => !VARYING.has(k!)).sort(([a], [b]) => a!.localeCompare(b!)));
}

async function served(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, { headers });
  return { status: res.status, headers: comparable(res.headers), body: await res.text() };
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('discovery and JWKS documents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { GATEHOUSE_KEY_ACTIVATION_DELAY: '0', GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '100' },
    });
  });
  afterAll(async () => server?.stop());

  it("serves the provider's own discovery document, byte for byte, with its headers", async () => {
    const own = await providerAnswer(server, DISCOVERY);
    expect(own.status).toBe(200);
    expect(await served(server, DISCOVERY)).toEqual(own);
    expect(own.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it("serves the provider's own JWKS, plus its cache lifetime", async () => {
    const own = await providerAnswer(server, JWKS);
    expect(await served(server, JWKS)).toEqual({
      ...own,
      headers: { ...own.headers, 'cache-control': 'max-age=300, must-revalidate' },
    });
    expect(own.headers['content-type']).toBe('application/jwk-set+json; charset=utf-8');
  });

  it("answers CORS as the provider does: the caller's origin on GET, preflights by the provider", async () => {
    for (const path of [DISCOVERY, JWKS]) {
      const plain = await fetch(`${server.url}${path}`);
      expect([plain.headers.get('access-control-allow-origin'), plain.headers.get('vary')]).toEqual(['*', 'Origin']);
      const cross = await fetch(`${server.url}${path}`, { headers: { origin: 'https://app.example.com' } });
      expect(cross.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      const preflight = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-custom',
        },
      });
      expect(preflight.status).toBe(204);
      expect(Object.fromEntries([...preflight.headers].filter(([k]) => k.startsWith('access-control-')))).toEqual({
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-methods': 'GET',
        'access-control-allow-headers': 'x-custom',
        'access-control-max-age': '3600',
      });
    }
  });

  it('answers HEAD and HTTP/2 with the same document', async () => {
    const head = await fetch(`${server.url}${JWKS}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(
      String(Buffer.byteLength((await providerAnswer(server, JWKS)).body)),
    );
    const session = connect(server.url);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ':path': DISCOVERY });
        let data = '';
        req.on('data', (chunk) => {
          data += chunk;
        });
        req.on('end', () => resolve(data));
        req.on('error', reject);
      });
      expect(body).toBe((await providerAnswer(server, DISCOVERY)).body);
    } finally {
      session.close();
    }
  });

  it('publishes a new JWKS as soon as the keys change, without restart, and keeps discovery', async () => {
    const before = await served(server, JWKS);
    const discovery = await served(server, DISCOVERY);
    // unchanged keys: the same bytes across reloads
    await new Promise((r) => setTimeout(r, 300));
    expect((await served(server, JWKS)).body).toBe(before.body);

    const { kid } = await rotateKeys(server.db, secrets, 0);
    await until('the rotated key in the served JWKS', async () => (await served(server, JWKS)).body.includes(kid));
    const after = await served(server, JWKS);
    expect(after.body).toBe((await providerAnswer(server, JWKS)).body);
    expect(JSON.parse(after.body).keys.map((k: { kid: string }) => k.kid)[0]).toBe(kid);
    expect(await served(server, DISCOVERY)).toEqual(discovery);
  });
});
