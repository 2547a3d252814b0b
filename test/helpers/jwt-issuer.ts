// A real JWT identity provider for the JWT IdP tests: ES256 keys, its JWKS served over HTTP on loopback, tokens signed
// with the current key; rotate() replaces the key (new kid), as an IdP rotating its keys does.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export interface JwtIssuer {
  issuer: string;
  keysUrl: string;
  /** How often the JWKS was fetched. */
  keyFetches(): number;
  sign(claims: JWTPayload, options?: { expiresIn?: string | number; key?: 'current' | 'unpublished' }): Promise<string>;
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export async function startJwtIssuer(): Promise<JwtIssuer> {
  let generation = 1;
  let current = await newKey('key-1');
  const unpublished = await newKey('never-published');
  let fetches = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/keys') return res.writeHead(404).end();
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [current.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: `${base}/issuer`,
    keysUrl: `${base}/keys`,
    keyFetches: () => fetches,
    sign(claims, options = {}) {
      const key = options.key === 'unpublished' ? unpublished : current;
      return new SignJWT({ iat: Math.floor(Date.now() / 1000), ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid })
        .setIssuer(`${base}/issuer`)
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(key.privateKey);
    },
    async rotate() {
      current = await newKey(`key-${++generation}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
