import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { csrfToken, sameOriginPost, validCsrfToken } from '../../src/web/security.ts';

const ORIGIN = 'https://id.example.com';

describe('form post origin check', () => {
  it.each([
    [{ origin: ORIGIN, 'sec-fetch-site': 'same-origin' }, true],
    [{ origin: ORIGIN }, true],
    [{ origin: 'null', 'sec-fetch-site': 'same-origin' }, true],
    [{}, true], // no browser headers at all: the CSRF token decides
    [{ origin: 'null' }, false],
    [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, false],
    [{ origin: 'https://evil.example' }, false],
    [{ origin: 'https://id.example.com.evil.example' }, false],
    [{ 'sec-fetch-site': 'same-site' }, false],
    [{ 'sec-fetch-site': 'cross-site' }, false],
    [{ origin: ORIGIN, 'sec-fetch-site': 'cross-site' }, false],
  ])('%o → %s', (headers, expected) => {
    expect(sameOriginPost(headers, ORIGIN)).toBe(expected);
  });
});

describe('CSRF token per interaction', () => {
  const secrets = createSecretBox('k'.repeat(40));
  it('is accepted only for its own interaction and only under the same master key', () => {
    const token = csrfToken(secrets, 'uid-1');
    expect(validCsrfToken(secrets, 'uid-1', token)).toBe(true);
    expect(validCsrfToken(secrets, 'uid-2', token)).toBe(false);
    expect(validCsrfToken(createSecretBox('x'.repeat(40)), 'uid-1', token)).toBe(false);
    expect(validCsrfToken(secrets, 'uid-1', '')).toBe(false);
    expect(validCsrfToken(secrets, 'uid-1', undefined)).toBe(false);
    expect(validCsrfToken(secrets, 'uid-1', [token])).toBe(false);
  });
});
