// Background jobs run once per deployment, not once per worker: of every process ticking, one claims a period.
import { describe, expect, it } from 'vitest';
import { claimJob } from '../../src/platform/jobs.ts';
import { useTestDb } from '../helpers/database.ts';

describe('claimJob', () => {
  const db = useTestDb();

  it('gives each period to exactly one of the callers that try at once', async () => {
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimJob(db, 'test-once', 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimJob(db, 'test-once', 60_000)).toBe(false);
    // another job has periods of its own
    expect(await claimJob(db, 'test-other', 60_000)).toBe(true);
  });

  it('gives the next period once the interval, less a tenth for clocks (at most 1 s), has passed', async () => {
    expect(await claimJob(db, 'test-period', 500)).toBe(true);
    expect(await claimJob(db, 'test-period', 500)).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const claims = await Promise.all(Array.from({ length: 4 }, () => claimJob(db, 'test-period', 500)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
