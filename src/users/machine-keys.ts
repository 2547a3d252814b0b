// Key pairs for machine users (JWT-profile grant, compat.md §6). Gatehouse generates the pair, keeps only the
// public key and hands the private key out once, in ZITADEL's key file format.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Queryable } from '../platform/db.ts';
import { newId } from '../platform/ids.ts';
import { insertMachineKey } from './queries.ts';

const generateRsa = promisify(generateKeyPair);

/** ZITADEL's key file for service users: the JSON that its SDKs' service-account helpers read. */
export interface ServiceAccountKeyFile {
  type: 'serviceaccount';
  keyId: string;
  key: string;
  expirationDate: string;
  userId: string;
}

// ZITADEL's default for keys created without an expiration date.
const NO_EXPIRY = new Date('9999-12-31T23:59:59Z');

export async function addMachineKey(
  tx: Queryable,
  userId: string,
  expiresAt: Date = NO_EXPIRY,
): Promise<ServiceAccountKeyFile> {
  const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const keyId = newId();
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: keyId, alg: 'RS256', use: 'sig' };
  await insertMachineKey(tx, { id: keyId, userId, publicJwk, expiresAt });
  return {
    type: 'serviceaccount',
    keyId,
    // PKCS#1 PEM, as ZITADEL emits it
    key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    expirationDate: expiresAt.toISOString(),
    userId,
  };
}
