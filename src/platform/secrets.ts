// Secrets at rest, unreadable in a copy of the database. Two keys are derived from the master key: one encrypts private
// keys (AES-256-GCM), one hashes generated client and machine secrets (HMAC-SHA-256; they carry 256 bits of entropy, so
// a password KDF would only cost throughput).
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  /** Keyed hash of a generated secret, for storage. */
  hashSecret(secret: string): string;
  /** Constant-time check of a presented secret against a stored hash. */
  verifySecret(secret: string, storedHash: string): boolean;
}

export function createSecretBox(masterKey: string): SecretBox {
  // KeyObjects: Node prepares a raw Buffer key anew on every createHmac/createCipheriv, which costs several times the
  // HMAC of a short value itself (CSRF tokens and the accounts cookie on every login page).
  const derive = (info: string) => createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, 'gatehouse', info, 32)));
  const encKey = derive('encryption v1');
  const macKey = derive('secret hash v1');
  const hashSecret = (secret: string) =>
    `hmac-sha256:${createHmac('sha256', macKey).update(secret, 'utf8').digest('base64url')}`;
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    decrypt(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    hashSecret,
    verifySecret(secret, storedHash) {
      const a = Buffer.from(hashSecret(secret));
      const b = Buffer.from(storedHash);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

/** A new high-entropy secret (256 bits) for clients and machine users. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}
