// One cleartext port for HTTP/1.1 and HTTP/2 with prior knowledge (src/platform/http.ts), and a shutdown that
// does not wait for idle HTTP/2 sessions.
import http2 from 'node:http2';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.ts';

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

/** Connects, sends `bytes`, waits until the server has answered or `ms` passed, then resets the connection (RST). */
function resetAfter(url: string, bytes: string, ms: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('error', () => {});
    const reset = () => {
      socket.resetAndDestroy();
      resolve();
    };
    const timer = setTimeout(reset, ms);
    socket.once('data', () => {
      clearTimeout(timer);
      reset();
    });
  });
}

function h2Get(session: http2.ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let status = 0;
    let body = '';
    req.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    req.on('data', (d) => {
      body += String(d);
    });
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
    req.setTimeout(10_000, () => req.close(http2.constants.NGHTTP2_CANCEL));
  });
}

describe('one port, two protocols', () => {
  it('serves HTTP/1.1 and h2c on the same port, and closes promptly with an idle HTTP/2 session open', async () => {
    const server = await startTestServer();
    let session: http2.ClientHttp2Session | undefined;
    try {
      const h1 = await fetch(`${server.url}/healthz`);
      expect(h1.status).toBe(200);
      session = http2.connect(server.url);
      session.on('error', () => {});
      const h2 = await h2Get(session, '/healthz');
      expect(h2.status).toBe(200);
      expect(JSON.parse(h2.body)).toEqual(await h1.json());
      // the session stays open and idle; shutdown must not wait for its idle timeout
      const started = Date.now();
      await server.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      await new Promise<void>((resolve) => (session!.closed ? resolve() : session!.once('close', () => resolve())));
    } finally {
      session?.destroy();
      await server.database.drop();
    }
  });

  it('survives clients that reset the connection while it is still deciding the protocol', async () => {
    const server = await startTestServer();
    try {
      // before any byte, in the middle of the preface, and after the full preface (the server has sent its SETTINGS
      // and waits for the ACK): the socket's error belongs to no HTTP server yet, and must not end the process
      for (let i = 0; i < 5; i++) {
        await resetAfter(server.url, '', 20);
        await resetAfter(server.url, PREFACE.slice(0, 10), 20);
        await resetAfter(server.url, PREFACE, 500);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
      await server.database.drop();
    }
  });
});
