// The bytes the preface sniffer hands to node's HTTP/2 session (src/platform/h2c-preface.ts).
import { describe, expect, it } from 'vitest';
import { connectionStart } from '../../src/platform/h2c-preface.ts';

const frame = (type: number, flags: number, stream: number, payload: Buffer | string) => {
  const body = Buffer.from(payload as string, typeof payload === 'string' ? 'hex' : undefined);
  const header = Buffer.alloc(9);
  header.writeUIntBE(body.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, body]);
};
const SETTINGS = frame(4, 0, 0, '000300000064');
const ACK = frame(4, 1, 0, '');
const END_STREAM_HEADERS = 0x5;
// GET, https, /readyz as HAProxy encodes them
const HAPROXY_BLOCK = '828744072f72656164797a';
const AUTHORITY = '127.0.0.1:8080';
const authorityField = `010e${Buffer.from(AUTHORITY).toString('hex')}`; // literal without indexing, static name 1

describe('the start of an h2c connection', () => {
  it('drops the ACK of our SETTINGS and says whether it and the first request have arrived', () => {
    expect(connectionStart(SETTINGS, AUTHORITY)).toEqual({ bytes: SETTINGS, acknowledged: false, requested: false });
    const partial = ACK.subarray(0, 5);
    expect(connectionStart(Buffer.concat([SETTINGS, partial]), AUTHORITY)).toEqual({
      bytes: Buffer.concat([SETTINGS, partial]),
      acknowledged: false,
      requested: false,
    });
    const ping = frame(6, 0, 0, '0102030405060708');
    // only the first ACK is ours; the tail of an incomplete frame is passed on as it is
    expect(connectionStart(Buffer.concat([SETTINGS, ACK, ping, ACK, partial]), AUTHORITY)).toEqual({
      bytes: Buffer.concat([SETTINGS, ping, ACK, partial]),
      acknowledged: true,
      requested: false,
    });
  });

  it('gives the first request :authority when it has neither :authority nor host, also with padding and priority', () => {
    const bytes = Buffer.concat([SETTINGS, ACK, frame(1, END_STREAM_HEADERS, 1, HAPROXY_BLOCK)]);
    expect(connectionStart(bytes, AUTHORITY)).toEqual({
      bytes: Buffer.concat([SETTINGS, frame(1, END_STREAM_HEADERS, 1, authorityField + HAPROXY_BLOCK)]),
      acknowledged: true,
      requested: true,
    });
    // PADDED (2 bytes of padding) and PRIORITY (5 bytes) before the block
    const padded = frame(1, END_STREAM_HEADERS | 0x8 | 0x20, 1, `02${'0000000010'}${HAPROXY_BLOCK}0000`);
    expect(connectionStart(Buffer.concat([padded, ACK]), AUTHORITY).bytes).toEqual(
      frame(1, END_STREAM_HEADERS | 0x8 | 0x20, 1, `02${'0000000010'}${authorityField}${HAPROXY_BLOCK}0000`),
    );
  });

  it('leaves requests alone that name :authority or host, later requests, and blocks it cannot be sure of', () => {
    const untouched = [
      `${HAPROXY_BLOCK}41093132372e302e302e31`, // :authority, literal with indexing
      `${HAPROXY_BLOCK}66093132372e302e302e31`, // host (static 38), literal with indexing
      `${HAPROXY_BLOCK}0004686f7374023132`, // host as a literal name
      `${HAPROXY_BLOCK}00839ce8a9023132`, // a Huffman-coded literal name
      `${HAPROXY_BLOCK}be`, // an index into the dynamic table
      `3f${HAPROXY_BLOCK}`, // a dynamic table size update
      '8287440f2f72', // a truncated string
    ];
    for (const block of untouched) {
      const bytes = Buffer.concat([ACK, frame(1, END_STREAM_HEADERS, 1, block)]);
      expect(connectionStart(bytes, AUTHORITY).bytes, block).toEqual(frame(1, END_STREAM_HEADERS, 1, block));
    }
    // continued in a CONTINUATION frame
    const continued = Buffer.concat([frame(1, 0x1, 1, HAPROXY_BLOCK), frame(9, 0x4, 1, '')]);
    expect(connectionStart(Buffer.concat([ACK, continued]), AUTHORITY).bytes).toEqual(continued);
    // only the connection's first HEADERS
    const first = frame(1, END_STREAM_HEADERS, 1, `${HAPROXY_BLOCK}41093132372e302e302e31`);
    const second = frame(1, END_STREAM_HEADERS, 3, HAPROXY_BLOCK);
    expect(connectionStart(Buffer.concat([first, ACK, second]), AUTHORITY).bytes).toEqual(
      Buffer.concat([first, second]),
    );
  });
});
