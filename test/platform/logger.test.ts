// Request logging (src/platform/logger.ts requestLogger): every line a request writes carries its request ID, at the
// configured level and the route's own, with secrets redacted; requests that log nothing cost no logger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { prettyDestination, stdoutDestination } from '../../src/platform/log-pretty.ts';

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

// On a terminal the same records are shown readable (src/platform/log-pretty.ts), from the JSON pino has redacted.
describe('the readable format', () => {
  const shown = (options: { colors?: boolean; requests?: boolean }, write: (log: Logger) => void) => {
    let text = '';
    const out = { write: (chunk: string) => (text += chunk) };
    write(createLogger('info', prettyDestination(out, { colors: false, requests: false, ...options })));
    return text;
  };

  it('redacts secrets as the JSON lines do: keys at any depth, errors, credentials in a request URL', () => {
    const text = shown({ requests: true }, (log) => {
      log.info({ a: { b: { userPassword: 'x-pass' } }, body: { token: 't-secret' }, newPassword: 'z-pass' }, 'changed');
      log.error({ err: Object.assign(new Error('failed'), { details: { machineSecret: 'm-secret' } }) }, 'failed');
      log.info({ reqId: 'r1', req: { method: 'GET', url: '/cb?code=c-secret&state=s' } }, 'incoming request');
      log.info({ reqId: 'r1', res: { statusCode: 302 }, responseTime: 2.4 }, 'request completed');
    });
    expect(text).not.toMatch(/-pass|-secret/);
    expect(text).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}changed a=\{"b":\{"userPassword":"\[redacted\]"\}\} body=\{"token":"\[redacted\]"\}/m,
    );
    expect(text).toMatch(
      /^\d\d:\d\d:\d\d ERROR failed err.details=\{"machineSecret":"\[redacted\]"\}\n {4}Error: failed\n +at /m,
    );
    expect(text).toMatch(/^\d\d:\d\d:\d\d DEBUG GET \/cb\?code=\[redacted\]&state=s 302 2 ms$/m);
    expect(text).not.toContain('{"level"');
  });

  it('shows request lines only when asked (debug and trace), one line per request', () => {
    const requests = (log: Logger) => {
      log.info({ reqId: 'r1', req: { method: 'POST', url: '/oauth/v2/token' } }, 'incoming request');
      log.info({ reqId: 'r1', res: { statusCode: 400 }, responseTime: 7 }, 'request completed');
    };
    expect(shown({}, requests)).toBe('');
    expect(shown({ requests: true }, requests).split('\n')).toEqual([
      expect.stringMatching(/ DEBUG POST \/oauth\/v2\/token 400 7 ms$/),
      '',
    ]);
  });

  it('escapes control characters, so a logged value cannot drive the terminal', () => {
    const esc = String.fromCharCode(27);
    const text = shown({}, (log) => log.warn({ userName: `a${esc}[31mb`, note: 'two\nlines' }, `hi${esc}[2J`));
    expect(text).not.toContain(esc);
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    expect(text).toContain('hi\\u001b[2J userName="a\\u001b[31mb" note="two\\nlines"');
  });

  it('is chosen by GATEHOUSE_LOG_FORMAT: auto follows the terminal, colours only on one', () => {
    const stream = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY }) as unknown as NodeJS.WriteStream;
    expect(stdoutDestination('auto', 'info', stream(false))).toBeUndefined();
    expect(stdoutDestination('json', 'info', stream(true))).toBeUndefined();
    expect(stdoutDestination('auto', 'info', stream(true))).toBeDefined();
    const piped = stream(false);
    let text = '';
    piped.on('data', (chunk) => (text += String(chunk)));
    createLogger('info', stdoutDestination('pretty', 'info', piped)).warn('plain');
    expect(text).toMatch(/^\d\d:\d\d:\d\d WARN {2}plain\n$/);
  });
});
