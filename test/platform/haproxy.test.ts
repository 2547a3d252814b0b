// HAProxy's HTTP/2 health check against a node: with `proto h2` on the server line the check speaks h2c and sends its
// request without :authority or host, which node's HTTP/2 server refused with RST_STREAM, so HAProxy marked every node
// down ("Socket error"). src/platform/h2c-preface.ts completes that request.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startHaproxy } from '../helpers/haproxy.ts';
import { until } from '../helpers/load.ts';
import { startTestServer } from '../helpers/server.ts';

// What HAProxy 2.6 sends for `option httpchk GET /readyz` on a `proto h2` server (captured): the preface and its
// SETTINGS; after the server's SETTINGS, the ACK and HEADERS (GET, https, /readyz; no :authority, no host).
const PREFACE_AND_SETTINGS = Buffer.from(
  '505249202a20485454502f322e300d0a0d0a534d0d0a0d0a000012040000000000000200000000000800000001000300000064',
  'hex',
);
const ACK = Buffer.from('000000040100000000', 'hex');
const HEADERS = Buffer.from('00000b010500000001828744072f72656164797a', 'hex');

interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}
function frames(bytes: Buffer): Frame[] {
  const out: Frame[] = [];
  for (let o = 0; o + 9 <= bytes.length; ) {
    const length = bytes.readUIntBE(o, 3);
    out.push({
      type: bytes[o + 3]!,
      flags: bytes[o + 4]!,
      stream: bytes.readUInt32BE(o + 5),
      payload: bytes.subarray(o + 9, o + 9 + length),
    });
    o += 9 + length;
  }
  return out;
}

describe('HAProxy health checks over HTTP/2', () => {
  // HAProxy writes the ACK and the request together, or (seen now and then) in two writes
  for (const split of [false, true]) {
    it(`answers HAProxy's h2c check request, which has no :authority, with its response instead of RST_STREAM${split ? ' (ACK and request apart)' : ''}`, async () => {
      const server = await startTestServer();
      try {
        const { port } = new URL(server.url);
        const received = await new Promise<Buffer>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1');
          let bytes = Buffer.alloc(0);
          let sent = false;
          const timer = setTimeout(() => {
            socket.destroy();
            resolve(bytes);
          }, 5000);
          socket.on('connect', () => socket.write(PREFACE_AND_SETTINGS));
          socket.on('data', (d) => {
            bytes = Buffer.concat([bytes, d]);
            // as HAProxy: the request only after the server's SETTINGS
            if (!sent && frames(bytes).some((f) => f.type === 4 && !(f.flags & 1))) {
              sent = true;
              if (!split) socket.write(Buffer.concat([ACK, HEADERS]));
              else {
                socket.write(ACK);
                setTimeout(() => socket.write(HEADERS), 20);
              }
            }
            const seen = frames(bytes);
            if (
              seen.some((f) => f.stream === 1 && f.flags & 1 && (f.type === 0 || f.type === 1)) ||
              seen.some((f) => f.type === 3 || f.type === 7)
            ) {
              clearTimeout(timer);
              socket.destroy();
              resolve(bytes);
            }
          });
          socket.on('error', reject);
        });
        const answer = frames(received);
        expect(answer.filter((f) => f.type === 3 || f.type === 7)).toEqual([]); // no RST_STREAM, no GOAWAY
        const headers = answer.find((f) => f.type === 1 && f.stream === 1);
        expect(headers).toBeDefined();
        expect(headers!.payload[0]).toBe(0x88); // HPACK static index 8: ":status: 200"
        expect(
          answer
            .filter((f) => f.type === 0 && f.stream === 1)
            .map((f) => String(f.payload))
            .join(''),
        ).toContain('"status":"ok"');
      } finally {
        await server.stop();
      }
    });
  }

  it('a node behind HAProxy with `proto h2` and `option httpchk GET /readyz` is UP, and serves through it', async () => {
    const server = await startTestServer();
    const { port } = new URL(server.url);
    const haproxy = await startHaproxy([
      'option httpchk GET /readyz',
      'http-check expect status 200',
      // Without it a check may take only `inter` (100 ms): a busy CI machine's slow answer is a timeout, not the
      // HTTP/2 failure this test is about, and took the node down once (failedChecks 1, status L7OK).
      'timeout check 2s',
      `server node1 127.0.0.1:${port} proto h2 check inter 100ms fall 1 rise 1`,
    ]);
    try {
      // the first check's result: a server starts UP, so wait for a check to have run and read its outcome
      await until(async () => (await haproxy.servers())[0]?.checkStatus !== 'INI', 10_000, 'first health check');
      // some 20 more checks, each of which would take the node down on failure (fall 1)
      await new Promise((r) => setTimeout(r, 2000));
      expect(await haproxy.servers()).toEqual([{ name: 'node1', status: 'UP', checkStatus: 'L7OK', failedChecks: 0 }]);
      expect(haproxy.log()).not.toMatch(/is DOWN/);
      const through = await fetch(`${haproxy.url}/readyz`);
      expect(through.status).toBe(200);
      expect(await through.json()).toEqual({ status: 'ok' });
    } finally {
      await haproxy.stop();
      await server.stop();
    }
  });
});
