import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  HASH_CONCURRENCY,
  HashAdmission,
  HashingBusy,
  HashingShareTaken,
  type HashSlot,
  hashPassword,
  verifyDecoy,
  verifyPassword,
} from '../../src/users/passwords.ts';

describe('password hashing', () => {
  it('hashes with argon2id at m=19456 KiB, t=2, p=1 and verifies right, wrong and malformed hashes under load', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const attempts = Array.from({ length: 3 * HASH_CONCURRENCY + 1 }, (_, i) => i % 3);
    const results = await Promise.all(
      attempts.map((kind) =>
        kind === 0
          ? verifyPassword('correct horse battery', stored)
          : kind === 1
            ? verifyPassword('wrong horse battery', stored)
            : verifyPassword('x', 'not a hash'),
      ),
    );
    expect(results).toEqual(attempts.map((kind) => kind === 0));
    expect(await verifyDecoy('correct horse battery')).toBe(false);
  });

  it('leaves libuv threads free: a JWT signature is not queued behind waiting hashes', async () => {
    // what the token endpoint does for an ID token: an RS256 signature through WebCrypto (jose), on libuv's pool
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = await webcrypto.subtle.importKey(
      'pkcs8',
      privateKey.export({ type: 'pkcs8', format: 'der' }),
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const stored = await hashPassword('correct horse battery');
    let settled = 0;
    const burst = Array.from({ length: 4 * HASH_CONCURRENCY + 4 }, () =>
      verifyPassword('correct horse battery', stored).finally(() => settled++),
    );
    await webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', key, new TextEncoder().encode('header.payload'));
    // first come first served on the pool, the signature would have waited for nearly the whole burst
    expect(settled).toBeLessThan(burst.length / 2);
    expect(await Promise.all(burst)).toEqual(burst.map(() => true));
  });

  it('admits a bounded number of hashes per address and overall, says which bound refused, and gives places back', async () => {
    const admitted = (slot: ReturnType<HashAdmission['tryAdmit']>) => {
      if (!('release' in slot)) throw slot;
      return slot as HashSlot;
    };
    const perAddress = new HashAdmission({ perAddress: 2, queue: 100 });
    const a1 = admitted(perAddress.tryAdmit('a'));
    const a2 = admitted(perAddress.tryAdmit('a'));
    // the address's own excess: 429, RESOURCE_EXHAUSTED
    const excess = perAddress.tryAdmit('a');
    expect(excess).toBeInstanceOf(HashingShareTaken);
    expect(excess).toMatchObject({ status: 429, code: 8, retryAfter: 1 });
    const b = admitted(perAddress.tryAdmit('b'));
    a1.release();
    a1.release(); // once only
    const a3 = admitted(perAddress.tryAdmit('a'));
    expect(perAddress.tryAdmit('a')).toBeInstanceOf(HashingShareTaken);
    // a place is given back when its hash is done
    expect(await a2.verify('x', 'not a hash')).toBe(false);
    expect(perAddress.tryAdmit('a')).not.toBeInstanceOf(HashingShareTaken);
    // the address's excess is counted apart from the server's overload: 429 for the one, 503 for the other
    expect(perAddress.stats).toEqual({ hashed: 1, shed: 0, overShare: 2 });
    for (const slot of [a3, b]) slot.release();

    // the server's own bound: 503, UNAVAILABLE
    const overall = new HashAdmission({ perAddress: 100, queue: 1 });
    const slots = Array.from({ length: HASH_CONCURRENCY + 1 }, (_, i) => admitted(overall.tryAdmit(`address-${i}`)));
    const busy = overall.tryAdmit('someone else');
    expect(busy).toBeInstanceOf(HashingBusy);
    expect(busy).toMatchObject({ status: 503, code: 14, retryAfter: 1 });
    await expect(overall.hash('caller:1', 'a password')).rejects.toBeInstanceOf(HashingBusy);
    expect(overall.stats).toEqual({ hashed: 0, shed: 2, overShare: 0 });
    slots[0]!.release();
    expect(await overall.hash('caller:1', 'a password')).toMatch(/^\$argon2id\$/);
  });

  it('keeps a password change in one place for its two hashes: nothing of the address gets in between', async () => {
    const gate = new HashAdmission({ perAddress: 1, queue: 100 });
    const change = gate.tryAdmit('a', 2) as HashSlot;
    const stored = await hashPassword('old password');
    // the old password checked: the place is still the change's, another request of the address is refused
    expect(await change.verify('old password', stored)).toBe(true);
    expect(gate.tryAdmit('a')).toBeInstanceOf(HashingShareTaken);
    expect(await change.hash('new password')).toMatch(/^\$argon2id\$/);
    // both used: the place is given back, and the slot hashes no third time
    await expect(change.hash('third')).rejects.toThrow('hash slot already used');
    (gate.tryAdmit('a') as HashSlot).release();
    expect(gate.stats).toEqual({ hashed: 2, shed: 0, overShare: 1 });
  });
});
