import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cookieKeys } from '../../src/oidc/provider/cookie-keys.ts';

const SECRET = 'hmac-sha256:cookie-signing-key-of-this-test';
// keygrip's signature (its defaults: sha1, base64 made URL-safe), as processes without cookieKeys sign cookies
const keygripSign = (data: string) =>
  createHmac('sha1', SECRET)
    .update(data)
    .digest('base64')
    .replace(/\/|\+|=/g, (c) => ({ '/': '_', '+': '-', '=': '' })[c]!);

describe('cookie signer', () => {
  const keys = cookieKeys(SECRET);
  const data = '_gh_session=8Kq2mZ3xYw-1fVbN0aTcR';

  it('signs as keygrip does, so cookies stay valid across processes with and without it', () => {
    expect(keys.sign(data)).toBe(keygripSign(data));
    expect(keys.index(data, keygripSign(data))).toBe(0);
    expect(keys.verify(data, keygripSign(data))).toBe(true);
  });

  it('refuses another value, another key, a cut or extended signature, and non-strings', () => {
    const signature = keys.sign(data);
    expect(keys.index('_gh_session=another', signature)).toBe(-1);
    expect(cookieKeys(`${SECRET}x`).index(data, signature)).toBe(-1);
    expect(keys.index(data, signature.slice(0, -1))).toBe(-1);
    expect(keys.index(data, `${signature}A`)).toBe(-1);
    expect(keys.index(data, '')).toBe(-1);
    expect(keys.verify(data, undefined as unknown as string)).toBe(false);
  });
});
