// The start of a cleartext HTTP/2 connection, for the preface sniffer of http.ts: HAProxy's HTTP/2 health check
// (`option httpchk` on a `proto h2` server) sends its request without :authority and without host. RFC 9113 §8.3.1
// allows that ("unless there is no authority information to convey"), but nghttp2, under node's HTTP/2 server, refuses
// such a request with RST_STREAM PROTOCOL_ERROR, which HAProxy reports as "Socket error" and marks every node down.
// node offers no option to relax the check, so the first request of each connection that carries neither gets the
// address the client connected to as its :authority, as an HTTP/1.0 request without Host is answered for that address.
//
// HAProxy sends that request only after the server's SETTINGS, which nghttp2 sends once it owns the socket; after
// that no byte passes through JavaScript (a JavaScript stream between socket and session measured 13 times slower).
// So the sniffer sends the server's SETTINGS itself and keeps reading until the client has acknowledged them
// (RFC 9113 §6.5.3: immediately) and sent its first request, then hands nghttp2 the bytes without that ACK (nghttp2
// takes an ACK of SETTINGS it never sent as a connection error) and with the first request completed. nghttp2 then
// sends the same SETTINGS again, which the client acknowledges to it. The cost: one round trip at the start of each
// cleartext HTTP/2 connection (http.ts bounds the waits).
import http2 from 'node:http2';

const FRAME_HEADER = 9;
const HEADERS = 0x1;
const SETTINGS = 0x4;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
// SETTINGS_MAX_FRAME_SIZE as node's server announces it (the default, never raised here): a completed frame stays
// within.
const MAX_FRAME_SIZE = 16_384;
// HPACK static table (RFC 7541 Appendix A)
const STATIC_AUTHORITY = 1;
const STATIC_HOST = 38;
const STATIC_LAST = 61;
const AUTHORITY_NAME = Buffer.from(':authority');
const HOST_NAME = Buffer.from('host');

/** The server's SETTINGS frame: the settings node's session announces. */
export function settingsFrame(settings: http2.Settings): Buffer {
  const payload = http2.getPackedSettings(settings);
  const header = Buffer.alloc(FRAME_HEADER);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = SETTINGS;
  return Buffer.concat([header, payload]);
}

export interface ConnectionStart {
  /** What to hand to nghttp2: the client's bytes without the ACK of our SETTINGS, the first request completed. */
  bytes: Buffer;
  /** The client acknowledged our SETTINGS (that ACK is not in `bytes`). */
  acknowledged: boolean;
  /** The connection's first HEADERS frame has arrived whole. */
  requested: boolean;
}

/** Reads what the client sent after the connection preface, as far as whole frames go. */
export function connectionStart(bytes: Buffer, authority: string): ConnectionStart {
  const frames: Buffer[] = [];
  let offset = 0;
  let acknowledged = false;
  let requested = false;
  while (offset + FRAME_HEADER <= bytes.length) {
    const end = offset + FRAME_HEADER + bytes.readUIntBE(offset, 3);
    if (end > bytes.length) break;
    const frame = bytes.subarray(offset, end);
    const type = frame[3];
    if (!acknowledged && type === SETTINGS && frame[4]! & ACK && frame.readUInt32BE(5) === 0) acknowledged = true;
    else if (!requested && type === HEADERS) {
      requested = true;
      frames.push(withAuthority(frame, authority) ?? frame);
    } else frames.push(frame);
    offset = end;
  }
  frames.push(bytes.subarray(offset));
  return { bytes: Buffer.concat(frames), acknowledged, requested };
}

/** The HEADERS frame with an :authority field first in its header block, or undefined to leave it as it is:
 *  it has :authority or host, continues in CONTINUATION frames, or is not plain enough to be sure. */
function withAuthority(frame: Buffer, authority: string): Buffer | undefined {
  const flags = frame[4]!;
  if (!(flags & END_HEADERS)) return undefined;
  let start = FRAME_HEADER;
  let padding = 0;
  if (flags & PADDED) padding = frame[start++]!;
  if (flags & PRIORITY) start += 5;
  const blockEnd = frame.length - padding;
  const value = Buffer.from(authority, 'latin1');
  if (blockEnd < start || value.length > 126 || !lacksAuthority(frame.subarray(start, blockEnd))) return undefined;
  // literal header field without indexing (the dynamic table stays as the client keeps it), name by static index
  const field = Buffer.concat([Buffer.from([STATIC_AUTHORITY, value.length]), value]);
  const length = frame.length - FRAME_HEADER + field.length;
  if (length > MAX_FRAME_SIZE) return undefined;
  const header = Buffer.from(frame.subarray(0, FRAME_HEADER));
  header.writeUIntBE(length, 0, 3);
  return Buffer.concat([header, frame.subarray(FRAME_HEADER, start), field, frame.subarray(start)]);
}

/** True only when the header block (the connection's first: nothing in the dynamic table yet) certainly names
 *  neither :authority nor host. Names sent as Huffman-coded literals or by dynamic index count as unsure. */
function lacksAuthority(block: Buffer): boolean {
  let i = 0;
  const integer = (prefixBits: number): number | undefined => {
    if (i >= block.length) return undefined;
    const max = (1 << prefixBits) - 1;
    let value = block[i++]! & max;
    if (value < max) return value;
    for (let shift = 0; i < block.length && shift <= 21; shift += 7) {
      const byte = block[i++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
    return undefined;
  };
  /** A string literal: its bytes, null when Huffman-coded, undefined when malformed. */
  const string = (): Buffer | null | undefined => {
    const huffman = i < block.length && (block[i]! & 0x80) !== 0;
    const length = integer(7);
    if (length === undefined || i + length > block.length) return undefined;
    i += length;
    return huffman ? null : block.subarray(i - length, i);
  };
  while (i < block.length) {
    const first = block[i]!;
    if (first & 0x80) {
      // indexed field
      const index = integer(7);
      if (
        index === undefined ||
        index === 0 ||
        index > STATIC_LAST ||
        index === STATIC_AUTHORITY ||
        index === STATIC_HOST
      )
        return false;
      continue;
    }
    if ((first & 0xe0) === 0x20) return false; // dynamic table size update
    const index = integer((first & 0xc0) === 0x40 ? 6 : 4); // literal with, without or never indexing
    if (index === undefined || index > STATIC_LAST || index === STATIC_AUTHORITY || index === STATIC_HOST) return false;
    if (index === 0) {
      const name = string();
      if (!name || name.equals(AUTHORITY_NAME) || name.equals(HOST_NAME)) return false;
    }
    if (string() === undefined) return false;
  }
  return true;
}
