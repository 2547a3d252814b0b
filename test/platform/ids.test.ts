// Resource IDs (src/platform/ids.ts): numeric strings in creation order, also within one millisecond.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.ts';

describe('newId', () => {
  it('makes IDs that sort in the order they were made, however many fall in one millisecond', () => {
    const ids = Array.from({ length: 5000 }, newId).map(BigInt);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    const now = BigInt(Date.now());
    expect(ids.at(-1)! >> 22n).toBeGreaterThan(now - 5000n); // the milliseconds stay the clock's
  });
});
