// Request logging (src/platform/logger.ts requestLogger): every line a request writes carries its request ID, at the
// configured level and the route's own, with secrets redacted; requests that log nothing cost no logger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createLogger } from '../../src/platform/logger.ts';

/** A JSON log line: the nested members these tests read, and any other member by name. */
interface LogLine {
  req: { url: string };
  res: { statusCode: number };
  err: { message: string; details: unknown };
  a: { b: unknown };
  [member: string]: unknown;
}

const lines = (server: TestServer) =>
  server.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);

describe('request logs', () => {
  describe('at info', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(async () => server?.stop());

    it('writes the incoming and completed lines with the request ID, redacted', async () => {
      const res = await fetch(`${server.url}/oauth/v2/keys?access_token=secret-in-url`, {
        headers: { 'x-request-id': 'trace-42', authorization: 'Bearer secret-header' },
      });
      expect(res.headers.get('x-request-id')).toBe('trace-42');
      const mine = lines(server).filter((l) => l.reqId === 'trace-42');
      expect(mine.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
      expect(mine[0]!.req.url).toBe('/oauth/v2/keys?access_token=[redacted]');
      expect(mine[1]!.res.statusCode).toBe(200);
      expect(JSON.stringify(mine)).not.toContain('secret-');
    });

    it("keeps a route's own level: health checks write nothing at info", async () => {
      await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'probe-1' } });
      expect(lines(server).filter((l) => l.reqId === 'probe-1')).toEqual([]);
    });
  });

  describe('at warn', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ env: { LOG_LEVEL: 'warn' } });
    });
    afterAll(async () => server?.stop());

    it('writes only the warnings a request logs, with its request ID', async () => {
      await fetch(`${server.url}/oauth/v2/keys`, { headers: { 'x-request-id': 'quiet-1' } });
      // a cross-origin form post to the logout confirmation is refused with a warning
      const refused = await fetch(`${server.url}/oidc/v1/end_session/confirm`, {
        method: 'POST',
        headers: {
          'x-request-id': 'refused-1',
          origin: 'https://evil.example.com',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'xsrf=x',
      });
      expect(refused.status).toBe(403);
      const logged = lines(server);
      expect(logged.filter((l) => l.reqId === 'quiet-1')).toEqual([]);
      expect(logged.filter((l) => l.reqId === 'refused-1').map((l) => [l.level, l.msg, l.reason])).toEqual([
        [40, 'form post refused', 'cross-origin form post'],
      ]);
    });
  });
});

// Keys named like a password or a secret are redacted at any depth of any record.
describe('secret keys in log records', () => {
  const record = (write: (log: ReturnType<typeof createLogger>) => void) => {
    const out: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, done) {
          out.push(String(chunk));
          done();
        },
      }),
    );
    write(log);
    return JSON.parse(out.join('')) as LogLine;
  };

  it('redacts them at any depth, in arrays and in errors, and leaves the logged object as it was', () => {
    const logged = {
      a: { b: { userPassword: 'x-pass', clientSecret: 'y-secret', kept: 'visible' } },
      newPassword: 'z-pass',
      list: [{ SECRET: 's-secret' }],
      note: 'password reset',
    };
    const line = record((log) => log.info(logged, 'changed'));
    expect(line.a.b).toEqual({ userPassword: '[redacted]', clientSecret: '[redacted]', kept: 'visible' });
    expect(line.newPassword).toBe('[redacted]');
    expect(line.list).toEqual([{ SECRET: '[redacted]' }]);
    expect(line.note).toBe('password reset'); // values are not keys
    expect(logged.a.b.userPassword).toBe('x-pass');

    const error = Object.assign(new Error('failed'), { details: { machineSecret: 'm-secret' } });
    const errLine = record((log) => log.error({ err: error }, 'failed'));
    expect(errLine.err.message).toBe('failed');
    expect(errLine.err.details).toEqual({ machineSecret: '[redacted]' });
    expect(JSON.stringify([line, errLine])).not.toMatch(/-pass|-secret/);
  });
});
