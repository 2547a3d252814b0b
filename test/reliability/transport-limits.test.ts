// Transport limits under abuse from one address (SECURITY.md "Transport limits"): the request timeout on HTTP/1.1 and
// h2c, the HTTP/2 stream cap, the authorization request size cap, client aborts in the log, and oversized bodies that
// still get their answer on a connection that stays usable. Every attack is bounded.
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CALLBACK, createOidcApp, type TestApp } from '../helpers/oidc.ts';
import { FRAME, PROTOCOL_ERROR, RawHttp1, RawHttp2, REFUSED_STREAM, SETTING } from '../helpers/raw-http.ts';

const REQUEST_TIMEOUT_MS = 1500;
const STREAM_CAP = 100;
const AUTHORIZE_MAX_BYTES = 4096;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('transport limits', () => {
  let server: TestServer;
  let app: TestApp;
  const payloadRows = async () =>
    (await server.db.query('SELECT count(*)::int AS n FROM oidc_payloads')).rows[0]!.n as number;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        GATEHOUSE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS: String(STREAM_CAP),
        GATEHOUSE_AUTHORIZE_MAX_BYTES: String(AUTHORIZE_MAX_BYTES),
      },
    });
    app = await createOidcApp(server);
  });
  afterAll(async () => server?.stop());

  describe('request timeout', () => {
    it('HTTP/1.1: answers 408 and closes connections whose body or headers trickle in past the timeout', async () => {
      const bodies = await Promise.all(Array.from({ length: 10 }, () => RawHttp1.connect(server.url)));
      const heads = await Promise.all(Array.from({ length: 5 }, () => RawHttp1.connect(server.url)));
      try {
        for (const c of bodies)
          await c.write(
            'POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
              'application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ng',
          );
        for (const c of heads) await c.write('POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\n');
        const started = Date.now();
        // one byte every 200 ms: never idle, never complete
        while (Date.now() - started < REQUEST_TIMEOUT_MS * 4 && [...bodies, ...heads].some((c) => !c.closed)) {
          for (const c of bodies) if (!c.closed) await c.write('r').catch(() => {});
          for (const c of heads) if (!c.closed) await c.write('X').catch(() => {});
          await sleep(200);
        }
        for (const c of [...bodies, ...heads]) expect(await c.waitClosed(100)).toBe(true);
        const answered = await Promise.all(bodies.map((c) => c.readResponse(100)));
        for (const response of answered) if (response) expect(response.status).toBe(408);
        // a request that completes in time is still served
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      } finally {
        for (const c of [...bodies, ...heads]) c.destroy();
      }
    });

    it('h2c: ends a stream whose body trickles in past the timeout, and keeps the connection', async () => {
      const session = http2.connect(server.url);
      session.on('error', () => {});
      try {
        const streams = Array.from({ length: 10 }, () =>
          session.request({
            ':method': 'POST',
            ':path': '/oauth/v2/token',
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': '1000',
          }),
        );
        const outcomes = streams.map(
          (stream) =>
            new Promise<string>((resolve) => {
              let status = 0;
              stream.on('response', (h) => {
                status = Number(h[':status']);
              });
              stream.on('data', () => {});
              stream.on('close', () => resolve(status ? `status ${status}` : `reset ${stream.rstCode}`));
              stream.on('error', () => {});
            }),
        );
        const started = Date.now();
        while (Date.now() - started < REQUEST_TIMEOUT_MS * 4 && streams.some((s) => !s.closed)) {
          for (const s of streams) if (!s.closed && s.writable) s.write('g');
          await sleep(200);
        }
        expect(streams.every((s) => s.closed)).toBe(true);
        for (const outcome of await Promise.all(outcomes)) expect(outcome).toBe('status 408');
        // the session itself still serves
        const ok = await new Promise<number>((resolve, reject) => {
          const req = session.request({ ':path': '/healthz' });
          req.on('response', (h) => resolve(Number(h[':status'])));
          req.on('error', reject);
          req.resume();
        });
        expect(ok).toBe(200);
      } finally {
        session.destroy();
      }
    });
  });

  describe('HTTP/2 stream cap', () => {
    const fields: [string, string][] = [
      [':method', 'POST'],
      [':scheme', 'http'],
      [':authority', 'x'],
      [':path', '/oauth/v2/token'],
      ['content-type', 'application/x-www-form-urlencoded'],
    ];

    it('advertises the cap, refuses streams beyond it, ends idle streams after the timeout', async () => {
      // nghttp2 refuses excess streams with REFUSED_STREAM while its SETTINGS are not yet acknowledged
      const h2 = await RawHttp2.connect(server.url, false);
      try {
        expect(h2.serverSettings().get(SETTING.MAX_CONCURRENT_STREAMS)).toBe(STREAM_CAP);
        expect(h2.serverSettings().get(SETTING.MAX_HEADER_LIST_SIZE)).toBeLessThanOrEqual(16 * 1024);
        const ids = Array.from({ length: STREAM_CAP + 20 }, (_, i) => 2 * i + 1);
        for (const id of ids) h2.headers(id, fields, false); // HEADERS without END_STREAM: a body that never comes
        const admitted = ids.slice(0, STREAM_CAP);
        const beyond = ids.slice(STREAM_CAP);
        await h2.waitFor(() => beyond.every((id) => h2.finishedStreams().has(id)), 5_000);
        const finished = h2.finishedStreams();
        for (const id of beyond) expect(finished.get(id), `stream ${id}`).toBe(REFUSED_STREAM);
        for (const id of admitted) expect(finished.has(id), `stream ${id} before the timeout`).toBe(false);
        // the admitted streams stay open until the request timeout ends them
        await h2.waitFor(() => admitted.every((id) => h2.finishedStreams().has(id)), REQUEST_TIMEOUT_MS * 4);
        for (const id of admitted) expect(h2.finishedStreams().has(id), `stream ${id} after the timeout`).toBe(true);
        expect(h2.frames.some((f) => f.type === FRAME.GOAWAY)).toBe(false);
      } finally {
        h2.destroy();
      }
    });

    it('closes a connection that exceeds the acknowledged cap (GOAWAY)', async () => {
      // once the client acknowledged the cap, nghttp2 treats a stream beyond it as a connection error
      const h2 = await RawHttp2.connect(server.url, true);
      try {
        for (let i = 0; i <= STREAM_CAP; i++) h2.headers(2 * i + 1, fields, false);
        const goaway = await h2.waitFor((f) => f.type === FRAME.GOAWAY, 5_000);
        expect(goaway?.payload.readUInt32BE(4)).toBe(PROTOCOL_ERROR);
        expect(await h2.waitFor(() => false, 2_000).then(() => h2.closed)).toBe(true);
      } finally {
        h2.destroy();
      }
    });

    it('keeps the memory of many connections full of streams bounded', async () => {
      const CONNECTIONS = 4;
      const STREAMS = 1000;
      const before = process.memoryUsage();
      const connections = await Promise.all(
        Array.from({ length: CONNECTIONS }, () => RawHttp2.connect(server.url, false)),
      );
      try {
        for (const h2 of connections) for (let i = 0; i < STREAMS; i++) h2.headers(2 * i + 1, fields, false);
        // every stream got its answer (refused, or admitted and still open); measure while they are held
        await Promise.all(
          connections.map((h2) =>
            h2.waitFor(() => h2.finishedStreams().size >= STREAMS - STREAM_CAP || h2.closed, 10_000),
          ),
        );
        await sleep(200);
        const after = process.memoryUsage();
        const grownMb = (after.heapUsed + after.external - before.heapUsed - before.external) / 2 ** 20;
        expect(grownMb, `heap + external grew ${grownMb.toFixed(1)} MB`).toBeLessThan(40);
      } finally {
        for (const h2 of connections) h2.destroy();
      }
    });
  });

  describe('authorization request size cap', () => {
    const authorizeUrl = (extra: Record<string, string>) =>
      `/oauth/v2/authorize?${new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        ...extra,
      })}`;
    const h2Get = (path: string) =>
      new Promise<{ status: number; type: string }>((resolve, reject) => {
        const session = http2.connect(server.url);
        session.on('error', reject);
        const req = session.request({ ':path': path, accept: 'text/html' });
        let status = 0;
        let type = '';
        req.on('response', (h) => {
          status = Number(h[':status']);
          type = String(h['content-type'] ?? '');
        });
        req.on('error', () => {});
        req.on('close', () => {
          session.close();
          resolve({ status, type: status ? type : `reset ${req.rstCode}` });
        });
        req.resume();
      });
    const h1Get = async (path: string) => {
      const res = await fetch(server.url + path, { redirect: 'manual', headers: { accept: 'text/html' } });
      await res.arrayBuffer();
      return { status: res.status, type: res.headers.get('content-type') ?? '' };
    };

    it('refuses an oversized parameter, or oversized parameters together, with a 400 page on HTTP/1.1 and h2c, storing nothing', async () => {
      const bigState = { state: 's'.repeat(AUTHORIZE_MAX_BYTES + 100) };
      const manyParams = Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [`x${i}`, 'v'.repeat(AUTHORIZE_MAX_BYTES / 5)]),
      );
      const rows = await payloadRows();
      for (const extra of [bigState, manyParams]) {
        for (const get of [h1Get, h2Get]) {
          const res = await get(authorizeUrl(extra));
          expect(res.status).toBe(400);
          expect(res.type).toMatch(/^text\/html/);
        }
      }
      // far over the transport's header limit: refused before the application, over HTTP/2 as over HTTP/1.1
      const huge = authorizeUrl({ state: 's'.repeat(48 * 1024) });
      expect((await h1Get(huge)).status).toBe(431);
      expect((await h2Get(huge)).status).not.toBe(303);
      expect(await payloadRows()).toBe(rows);
    });

    it('still serves an authorization request within the cap (and stores its interaction)', async () => {
      const rows = await payloadRows();
      for (const get of [h1Get, h2Get])
        expect((await get(authorizeUrl({ state: 's'.repeat(AUTHORIZE_MAX_BYTES - 400) }))).status).toBe(303);
      expect(await payloadRows()).toBe(rows + 2);
    });
  });

  describe('client aborts', () => {
    it('logs a client that disconnects mid-body below warning, as a client abort, not a database failure', async () => {
      const logged = server.logs.length;
      const targets = [
        'POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
          'application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\ngrant_type=client_',
        'PUT /auth/v1/users/me/profile HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ' +
          '5000\r\n\r\n{"firstName":"',
        'POST /ui/login/not-an-interaction/password HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
          'application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\npassword=',
      ];
      for (let round = 0; round < 3; round++) {
        for (const head of targets) {
          const c = await RawHttp1.connect(server.url);
          await c.write(head);
          await sleep(100);
          c.destroy();
        }
      }
      const deadline = Date.now() + 3_000;
      const lines = () => server.logs.slice(logged).map((l) => JSON.parse(l) as { level: number; msg: string });
      while (Date.now() < deadline && lines().filter((l) => l.msg === 'client aborted the request').length < 6)
        await sleep(50);
      const newLines = lines();
      expect(
        newLines.filter((l) => l.level >= 40),
        JSON.stringify(newLines.filter((l) => l.level >= 40)),
      ).toEqual([]);
      expect(newLines.some((l) => /database unavailable/.test(l.msg))).toBe(false);
      const aborts = newLines.filter((l) => l.msg === 'client aborted the request');
      expect(aborts.length).toBeGreaterThanOrEqual(6); // token and login form (the REST gateway answers its own 400)
      for (const line of aborts) expect(line.level).toBeLessThan(40);
    });
  });

  describe('oversized bodies', () => {
    const MIB = 1024 * 1024;

    it('REST: answers 413 to a 1 MiB body, and the connection then serves the next request at once or is closed cleanly', async () => {
      for (let round = 0; round < 3; round++) {
        const c = await RawHttp1.connect(server.url);
        try {
          // a client that sends the whole body before it reads the response, the server answering in between
          c.pause();
          await c.write(
            `PUT /auth/v1/users/me/profile HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
              `application/json\r\nContent-Length: ${MIB}\r\n\r\n`,
          );
          await sleep(300);
          const written = await c.write(Buffer.alloc(MIB, 'a')).then(
            () => 'ok',
            (error: NodeJS.ErrnoException) => error.code,
          );
          c.resume();
          const response = await c.readResponse(5_000);
          expect(written).toBe('ok'); // not EPIPE: the server reads what the client still sends
          expect(response?.status).toBe(413);
          expect(JSON.parse(response!.body.toString()).code).toBe(8); // RESOURCE_EXHAUSTED
          await nextRequestAnsweredOrClosed(c, response!, server.url);
        } finally {
          c.destroy();
        }
      }
    });

    it('gRPC-Web: answers RESOURCE_EXHAUSTED to a declared message over the limit, closes cleanly, and the next request is answered at once', async () => {
      for (let round = 0; round < 3; round++) {
        const c = await RawHttp1.connect(server.url);
        try {
          const frame = Buffer.alloc(5 + MIB);
          frame.writeUInt32BE(MIB, 1);
          await c.write(
            `POST /zitadel.admin.v1.AdminService/SetUpOrg HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
              `application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: ${frame.length}\r\n\r\n`,
          );
          await c.write(frame).catch(() => {});
          const response = await c.readResponse(5_000);
          expect(response?.status).toBe(200);
          const status =
            response!.headers['grpc-status'] ?? /grpc-status:\s*(\d+)/.exec(response!.body.toString('latin1'))?.[1];
          expect(Number(status)).toBe(8);
          expect(response!.headers.connection).toBe('close'); // the unread rest of the body is not taken for a request
          await nextRequestAnsweredOrClosed(c, response!, server.url);
        } finally {
          c.destroy();
        }
      }
    });

    it('gRPC over h2c: answers RESOURCE_EXHAUSTED and the session serves the next call at once', async () => {
      const session = http2.connect(server.url);
      session.on('error', () => {});
      try {
        const call = (body: Buffer) =>
          new Promise<number>((resolve, reject) => {
            const stream = session.request({
              ':method': 'POST',
              ':path': '/zitadel.admin.v1.AdminService/SetUpOrg',
              'content-type': 'application/grpc',
              te: 'trailers',
            });
            let status = -1;
            const read = (h: http2.IncomingHttpHeaders) => {
              if (h['grpc-status'] === undefined) return;
              status = Number(h['grpc-status']);
              resolve(status);
            };
            // the status is the answer; the stream of an unread body itself stays open until the request timeout
            stream.on('response', read);
            stream.on('trailers', read);
            stream.on('error', () => {});
            stream.on('close', () => (status >= 0 ? resolve(status) : reject(new Error(`reset ${stream.rstCode}`))));
            stream.resume();
            stream.end(body);
          });
        const frame = Buffer.alloc(5 + MIB);
        frame.writeUInt32BE(MIB, 1);
        expect(await call(frame)).toBe(8);
        const started = Date.now();
        expect(await call(Buffer.alloc(5))).toBe(16); // an empty SetUpOrg without a token: UNAUTHENTICATED
        expect(Date.now() - started).toBeLessThan(1000);
      } finally {
        session.destroy();
      }
    });
  });
});

/** After an oversized body's answer: either the connection says `Connection: close` and is closed at once, or the
 *  next request on it is answered at once. Either way a new connection is answered at once. */
async function nextRequestAnsweredOrClosed(
  c: RawHttp1,
  response: { headers: Record<string, string> },
  url: string,
): Promise<void> {
  const started = Date.now();
  if (response.headers.connection === 'close') {
    expect(await c.waitClosed(1_000)).toBe(true);
  } else {
    await c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await c.readResponse(1_000))?.status).toBe(200);
  }
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect(Date.now() - started).toBeLessThan(1_500);
}
