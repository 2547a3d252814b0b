import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/platform/rate-limit.ts';

describe('RateLimiter', () => {
  it('allows up to the limit per window and key, then tells how long to wait', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ limit: 3, windowSeconds: 10 }, () => now);
    expect([1, 2, 3].map(() => limiter.hit('a').allowed)).toEqual([true, true, true]);
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.hit('b').allowed).toBe(true); // keys are independent
    now += 4_500;
    expect(limiter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    now += 5_500; // the window has passed
    expect(limiter.hit('a').allowed).toBe(true);
  });

  it('is off with a limit of 0', () => {
    const limiter = new RateLimiter({ limit: 0, windowSeconds: 1 });
    for (let i = 0; i < 100; i++) expect(limiter.hit('x').allowed).toBe(true);
  });

  it('keeps memory bounded under a flood of distinct keys', () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60 }, () => now);
    for (let i = 0; i < 250_000; i++) limiter.hit(`k${i}`);
    // the newest keys are still tracked and limited
    expect(limiter.hit('k249999').allowed).toBe(false);
    now += 61_000;
    expect(limiter.hit('k249999').allowed).toBe(true);
  });
});
