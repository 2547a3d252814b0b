// Key pairs for machine users (JWT-profile grant, RFC 7523), handed out once in ZITADEL's key file format
// (platform/key-pairs.ts).
import type { Queryable } from '../platform/db.ts';
import { KEY_NO_EXPIRY, newRsaKeyPair } from '../platform/key-pairs.ts';
import { insertMachineKey } from './queries.ts';

/** ZITADEL's key file for service users: the JSON that its SDKs' service-account helpers read. */
export interface ServiceAccountKeyFile {
  type: 'serviceaccount';
  keyId: string;
  key: string;
  expirationDate: string;
  userId: string;
}

export async function addMachineKey(
  tx: Queryable,
  userId: string,
  expiresAt: Date = KEY_NO_EXPIRY,
): Promise<ServiceAccountKeyFile> {
  const { keyId, publicJwk, privateKeyPem } = await newRsaKeyPair();
  await insertMachineKey(tx, { id: keyId, userId, publicJwk, expiresAt });
  return { type: 'serviceaccount', keyId, key: privateKeyPem, expirationDate: expiresAt.toISOString(), userId };
}
