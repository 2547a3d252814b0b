// Key pairs handed out as key files (ZITADEL's formats for service users and private_key_jwt apps): Gatehouse generates
// the pair, keeps only the public key and returns the private key once.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { newId } from './ids.ts';

const generateRsa = promisify(generateKeyPair);

/** ZITADEL's expiration date for keys created without one. */
export const KEY_NO_EXPIRY = new Date('9999-12-31T23:59:59Z');

export interface KeyPair {
  keyId: string;
  /** What is stored: the public key as an RS256 signing JWK with kid = keyId. */
  publicJwk: Record<string, unknown>;
  /** What the key file carries: the private key as PKCS#1 PEM, as ZITADEL emits it. */
  privateKeyPem: string;
}

export async function newRsaKeyPair(): Promise<KeyPair> {
  const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const keyId = newId();
  return {
    keyId,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid: keyId, alg: 'RS256', use: 'sig' },
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}
