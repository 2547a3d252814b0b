// The signer of oidc-provider's cookies (session, interaction, resume; the `cookies.keys` option takes "your own
// KeyGrip instance"). Signatures are keygrip's own (HMAC-SHA1 of `name=value`, base64url without padding), so a
// cookie signed by a process without this signer verifies here and back. What differs is the cost of a cookie read:
// keygrip compares by HMACing both signatures again under a fresh random key (tsscmp), three HMACs that each prepare
// a raw key; here one HMAC under a key prepared once, compared with timingSafeEqual.
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

export interface CookieKeys {
  sign(data: string): string;
  verify(data: string, digest: string): boolean;
  /** 0 when the digest is data's signature, -1 otherwise (keygrip's index of the matching key; there is one key). */
  index(data: string, digest: string): number;
}

export function cookieKeys(secret: string): CookieKeys {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const sign = (data: string) => createHmac('sha1', key).update(data).digest('base64url');
  const index = (data: string, digest: string) => {
    const expected = Buffer.from(sign(data));
    const presented = Buffer.from(String(digest));
    return expected.length === presented.length && timingSafeEqual(expected, presented) ? 0 : -1;
  };
  return { sign, index, verify: (data, digest) => index(data, digest) === 0 };
}
