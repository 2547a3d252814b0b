// A client abort is told apart from a database connection reset, so it never raises a database alert: both carry
// ECONNRESET.
import { describe, expect, it } from 'vitest';
import { isClientAbort, isDatabaseUnavailable } from '../../src/platform/errors.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isClientAbort', () => {
  it("is node's error for a request its client left unfinished, which is no database outage", () => {
    const abort = withCode('aborted', 'ECONNRESET');
    expect(isClientAbort(abort)).toBe(true);
    expect(isDatabaseUnavailable(abort)).toBe(false);
  });

  it('leaves a database connection reset a database outage', () => {
    for (const error of [
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('Connection terminated unexpectedly', 'ECONNRESET'),
    ]) {
      expect(isClientAbort(error)).toBe(false);
      expect(isDatabaseUnavailable(error)).toBe(true);
    }
  });
});
