// The JWT IdP's keys are fetched within bounds, so a keys endpoint cannot be aimed at internal services (SSRF): no
// loopback or private address without GATEHOUSE_ALLOW_PRIVATE_FETCH (also not through a redirect or a name), a bounded
// number of redirects, a size cap and a deadline; a token whose keys cannot be fetched is refused as "keys
// unavailable". The cache holds an IdP's keys for one version of its configuration (UpdateIDPJWTConfig: keys of the
// former endpoint are never used again).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefused, isPrivateAddress, safeFetchText } from '../../src/platform/safe-fetch.ts';
import { IdpKeyCache, TokenRefused } from '../../src/idps/jwt-token.ts';
import { startJwtIssuer, type JwtIssuer } from '../helpers/jwt-issuer.ts';

const BOUNDS = { timeoutMs: 1_000, maxBytes: 1024 };

describe('fetching a JWT IdP keys endpoint', () => {
  let server: Server;
  let base: string;
  let issuer: JwtIssuer;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/big') return res.end('x'.repeat(10_000));
      if (req.url === '/slow') return; // never answers
      res.end('{"keys":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    issuer = await startJwtIssuer();
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await issuer.close();
  });

  it('refuses loopback and private addresses unless allowed', async () => {
    for (const url of [`${base}/`, base.replace('127.0.0.1', 'localhost'), 'http://[::1]:9/', 'http://10.0.0.1/'])
      await expect(safeFetchText(url, { ...BOUNDS, allowPrivate: false })).rejects.toBeInstanceOf(FetchRefused);
    expect(await safeFetchText(`${base}/`, { ...BOUNDS, allowPrivate: true })).toBe('{"keys":[]}');
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1'])
      expect(isPrivateAddress(address)).toBe(true);
    expect(isPrivateAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
  });

  it('bounds redirects, size and time', async () => {
    const allowed = { ...BOUNDS, allowPrivate: true };
    await expect(safeFetchText(`${base}/loop`, allowed)).rejects.toThrow(/too many redirects/);
    await expect(safeFetchText(`${base}/big`, allowed)).rejects.toThrow(/larger than/);
    const started = Date.now();
    await expect(safeFetchText(`${base}/slow`, allowed)).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('without GATEHOUSE_ALLOW_PRIVATE_FETCH a loopback keysEndpoint is refused; with it the token passes', async () => {
    const token = await issuer.sign({ sub: 'someone' });
    const idp = { id: 'idp-1', sequence: '1', issuer: issuer.issuer, keys_endpoint: issuer.keysUrl };
    const refused = await new IdpKeyCache(false).verify(idp, token).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TokenRefused);
    expect((refused as TokenRefused).keysUnavailable).toBe(true);
    expect(issuer.keyFetches()).toBe(0);
    expect((await new IdpKeyCache(true).verify(idp, token)).sub).toBe('someone');
  });

  it('accepts only asymmetric algorithms, the configured issuer, a sane iat and a passed nbf', async () => {
    const cache = new IdpKeyCache(true);
    const idp = { id: 'idp-1', sequence: '1', issuer: issuer.issuer, keys_endpoint: issuer.keysUrl };
    const [, payload] = (await issuer.sign({ sub: 'x' })).split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    await expect(cache.verify(idp, none)).rejects.toBeInstanceOf(TokenRefused);
    const hs = `${Buffer.from('{"alg":"HS256","kid":"key-1"}').toString('base64url')}.${payload}.AAAA`;
    await expect(cache.verify(idp, hs)).rejects.toBeInstanceOf(TokenRefused);
    await expect(
      cache.verify({ ...idp, issuer: 'https://elsewhere' }, await issuer.sign({ sub: 'x' })),
    ).rejects.toThrow(/iss/);
    const future = await issuer.sign({ sub: 'x', iat: Math.floor(Date.now() / 1000) + 3600 });
    await expect(cache.verify(idp, future)).rejects.toThrow(/iat/);
    const notYet = await issuer.sign({ sub: 'x', nbf: Math.floor(Date.now() / 1000) + 3600 });
    await expect(cache.verify(idp, notYet)).rejects.toThrow(/nbf/);
  });

  it('after a change of the IdP (a new sequence) the keys are fetched anew; before it they are cached', async () => {
    const cache = new IdpKeyCache(true);
    const other = await startJwtIssuer();
    try {
      const idp = { id: 'idp-versioned', sequence: '10', issuer: issuer.issuer, keys_endpoint: issuer.keysUrl };
      const oldKeyToken = await issuer.sign({ sub: 'someone' });
      expect((await cache.verify(idp, oldKeyToken)).sub).toBe('someone');
      await issuer.rotate(); // the IdP no longer publishes the key that signed oldKeyToken
      const fetches = issuer.keyFetches();
      expect((await cache.verify(idp, oldKeyToken)).sub).toBe('someone'); // same version: from the cache
      expect(issuer.keyFetches()).toBe(fetches);
      await expect(cache.verify({ ...idp, sequence: '11' }, oldKeyToken)).rejects.toThrow(/unknown key/);
      expect(issuer.keyFetches()).toBe(fetches + 1);
      // moved to another issuer and keys endpoint: its tokens pass, the former issuer's do not
      const moved = { ...idp, sequence: '12', issuer: other.issuer, keys_endpoint: other.keysUrl };
      expect((await cache.verify(moved, await other.sign({ sub: 'elsewhere' }))).sub).toBe('elsewhere');
      await expect(cache.verify(moved, await issuer.sign({ sub: 'someone' }))).rejects.toBeInstanceOf(TokenRefused);
    } finally {
      await other.close();
    }
  });
});
