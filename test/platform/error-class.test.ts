// The one classification every surface answers errors by (app.ts, the management API, the provider, the pages).
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/platform/error-class.ts';
import { DatabaseUnavailable, invalidArgument } from '../../src/platform/errors.ts';
import { HashingBusy, HashingShareTaken } from '../../src/users/passwords.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('classifyError', () => {
  it('tells a client abort, a database outage and an error with a status of its own apart', () => {
    expect(classifyError(withCode('aborted', 'ECONNRESET'))).toEqual({ kind: 'aborted' });
    for (const outage of [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('terminating connection due to administrator command', '57P01'),
      new Error('timeout exceeded when trying to connect'),
      new DatabaseUnavailable(new Error('gone')),
    ]) {
      expect(classifyError(outage)).toEqual({ kind: 'outage', retryAfter: 5 });
    }
    expect(classifyError(Object.assign(new Error('body too large'), { statusCode: 413 }))).toEqual({
      kind: 'status',
      status: 413,
    });
    expect(classifyError(new Error('bug'))).toEqual({ kind: 'status', status: 500 });
    expect(classifyError(invalidArgument('bad'))).toEqual({ kind: 'status', status: 400 });
    // the client's own excess (429) and the server's own overload (503)
    expect(classifyError(new HashingShareTaken())).toEqual({ kind: 'status', status: 429, retryAfter: 1 });
    expect(classifyError(new HashingBusy())).toEqual({ kind: 'status', status: 503, retryAfter: 1 });
  });
});
