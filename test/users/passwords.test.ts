// Password hashing (src/users/passwords.ts): argon2id at the required parameters, and the bound on hashes running
// at once never loses a slot, whatever the outcome of a hash.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/users/passwords.ts';

describe('passwords', () => {
  it('hashes with argon2id m=19456 t=2 p=1 and verifies', async () => {
    const hash = await hashPassword('Correct-Horse-1');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword('Correct-Horse-1', hash)).toBe(true);
    expect(await verifyPassword('wrong', hash)).toBe(false);
  });

  it('finishes every one of many concurrent hashes, malformed stored hashes included', async () => {
    const hash = await hashPassword('Correct-Horse-1');
    const n = availableParallelism() * 3;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => verifyPassword('Correct-Horse-1', i % 3 ? hash : 'not-a-hash')));
    expect(results).toEqual(Array.from({ length: n }, (_, i) => i % 3 !== 0));
    // no slot was lost: a further hash still runs
    expect(await verifyPassword('Correct-Horse-1', hash)).toBe(true);
  });
});
