import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { knownAccountsCookieOptions, readKnownAccounts, withKnownAccount } from '../../src/login/known-accounts.ts';

describe('accounts known on this browser', () => {
  const secrets = createSecretBox('k'.repeat(40));

  it('keeps the most recent first, at most five, and reads back only what it wrote', () => {
    let value = '';
    for (const id of ['1', '2', '3', '4', '5', '6', '3'])
      value = withKnownAccount(secrets, readKnownAccounts(secrets, value), id);
    expect(readKnownAccounts(secrets, value)).toEqual(['3', '6', '5', '4', '2']);
    expect(value).not.toContain('"3"');
    const tampered = value.slice(0, -2) + (value.endsWith('AA') ? 'BB' : 'AA');
    expect(readKnownAccounts(secrets, tampered)).toEqual([]);
    expect(readKnownAccounts(createSecretBox('x'.repeat(40)), value)).toEqual([]);
    expect(readKnownAccounts(secrets, 'garbage')).toEqual([]);
    expect(readKnownAccounts(secrets, undefined)).toEqual([]);
  });

  it('is HttpOnly, SameSite=Lax, and Secure over https', () => {
    expect(knownAccountsCookieOptions(true, 60)).toEqual({
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      maxAge: 60,
    });
    expect(knownAccountsCookieOptions(false, 60).secure).toBe(false);
  });
});
