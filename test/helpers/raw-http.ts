// Raw clients for transport tests: an HTTP/1.1 keep-alive socket that reads one response at a time, and an HTTP/2
// connection that writes frames by hand (a real client library would respect the server's limits, an attacker
// does not). Every read is bounded in time.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A keep-alive HTTP/1.1 connection: write requests, read the responses in order, see when the server closes. */
export class RawHttp1 {
  readonly socket: net.Socket;
  #buffer = Buffer.alloc(0);
  #closed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake?.();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
    socket.on('error', () => {});
  }

  static connect(url: string, localAddress?: string): Promise<RawHttp1> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () =>
        resolve(new RawHttp1(socket)),
      );
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Stops reading, as a client does that sends its whole body before it reads the response. */
  pause(): void {
    this.socket.pause();
  }
  resume(): void {
    this.socket.resume();
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** Waits until the server closed the connection; false if it is still open after timeoutMs. */
  async waitClosed(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#closed && Date.now() < deadline) await this.#wait(deadline);
    return this.#closed;
  }

  /** The next complete response (Content-Length or chunked body), or undefined if none came within timeoutMs. */
  async readResponse(timeoutMs: number): Promise<RawResponse | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.#buffer);
      if (parsed) {
        this.#buffer = this.#buffer.subarray(parsed.length);
        return parsed.response;
      }
      if (this.#closed || Date.now() >= deadline) return undefined;
      await this.#wait(deadline);
    }
  }

  #wait(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function parseResponse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine!.split(' ')[1]);
  let offset = headEnd + 4;
  if (headers['transfer-encoding']?.includes('chunked')) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', offset);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buffer.subarray(offset, lineEnd).toString('latin1'), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
      if (size === 0) return { response: { status, headers, body: Buffer.concat(chunks) }, length: offset };
    }
  }
  const size = Number(headers['content-length'] ?? 0);
  if (buffer.length < offset + size) return undefined;
  return { response: { status, headers, body: buffer.subarray(offset, offset + size) }, length: offset + size };
}

export interface H2Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

export const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;
export const FLAG = { END_STREAM: 1, ACK: 1, END_HEADERS: 4 } as const;
export const SETTING = { MAX_CONCURRENT_STREAMS: 3, MAX_HEADER_LIST_SIZE: 6 } as const;
export const PROTOCOL_ERROR = 1;
export const REFUSED_STREAM = 7;

/** HTTP/2 with prior knowledge, frame by frame; HPACK only as literal fields without indexing or Huffman. */
export class RawHttp2 {
  readonly socket: net.Socket;
  readonly frames: H2Frame[] = [];
  #buffer = Buffer.alloc(0);
  #closed = false;
  #ackSettings = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      while (this.#buffer.length >= 9) {
        const length = this.#buffer.readUIntBE(0, 3);
        if (this.#buffer.length < 9 + length) break;
        const frame = {
          type: this.#buffer[3]!,
          flags: this.#buffer[4]!,
          streamId: this.#buffer.readUInt32BE(5) & 0x7fffffff,
          payload: this.#buffer.subarray(9, 9 + length),
        };
        this.frames.push(frame);
        this.#buffer = this.#buffer.subarray(9 + length);
        // every SETTINGS frame is acknowledged, as RFC 9113 §6.5.3 asks (the server may send more than one)
        if (this.#ackSettings && frame.type === FRAME.SETTINGS && !(frame.flags & FLAG.ACK))
          this.send(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(0));
      }
    });
    socket.on('close', () => {
      this.#closed = true;
    });
    socket.on('error', () => {});
  }

  /** Connects, sends the preface and an empty SETTINGS frame; `ackSettings` acknowledges the server's SETTINGS and
   *  returns once a PING has come back, so that all SETTINGS the server sent first are acknowledged. */
  static async connect(url: string, ackSettings = true): Promise<RawHttp2> {
    const { hostname, port } = new URL(url);
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: hostname, port: Number(port) }, () => resolve(s));
      s.once('error', reject);
    });
    const h2 = new RawHttp2(socket);
    h2.#ackSettings = ackSettings;
    socket.write(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    h2.send(FRAME.SETTINGS, 0, 0, Buffer.alloc(0));
    const settings = await h2.waitFor((f) => f.type === FRAME.SETTINGS && !(f.flags & FLAG.ACK), 5_000);
    if (!settings) throw new Error('no SETTINGS from the server');
    if (ackSettings) {
      h2.send(FRAME.PING, 0, 0, Buffer.alloc(8));
      if (!(await h2.waitFor((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0, 5_000)))
        throw new Error('no PING ACK from the server');
    }
    return h2;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The server's first SETTINGS frame, as identifier → value. */
  serverSettings(): Map<number, number> {
    const frame = this.frames.find((f) => f.type === FRAME.SETTINGS && !(f.flags & FLAG.ACK))!;
    const settings = new Map<number, number>();
    for (let i = 0; i + 6 <= frame.payload.length; i += 6)
      settings.set(frame.payload.readUInt16BE(i), frame.payload.readUInt32BE(i + 2));
    return settings;
  }

  send(type: number, flags: number, streamId: number, payload: Buffer): void {
    const header = Buffer.alloc(9);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = type;
    header[4] = flags;
    header.writeUInt32BE(streamId, 5);
    this.socket.write(Buffer.concat([header, payload]));
  }

  /** A request's HEADERS frame (with END_STREAM unless a body follows). */
  headers(streamId: number, fields: [string, string][], endStream: boolean): void {
    const block = Buffer.concat(
      fields.map(([name, value]) => Buffer.concat([Buffer.from([0]), hpackString(name), hpackString(value)])),
    );
    this.send(FRAME.HEADERS, FLAG.END_HEADERS | (endStream ? FLAG.END_STREAM : 0), streamId, block);
  }

  async waitFor(predicate: (frame: H2Frame) => boolean, timeoutMs: number): Promise<H2Frame | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(predicate);
      if (found || this.#closed || Date.now() >= deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Streams the server has ended (END_STREAM) or reset, with the reset's error code (or -1 for an ended stream). */
  finishedStreams(): Map<number, number> {
    const finished = new Map<number, number>();
    for (const f of this.frames) {
      if (f.type === FRAME.RST_STREAM) finished.set(f.streamId, f.payload.readUInt32BE(0));
      else if (
        (f.type === FRAME.HEADERS || f.type === FRAME.DATA) &&
        f.flags & FLAG.END_STREAM &&
        !finished.has(f.streamId)
      )
        finished.set(f.streamId, -1);
    }
    return finished;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** An HPACK string literal without Huffman coding (RFC 7541 §5.2), its length as a 7-bit prefix integer (§5.1). */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  const length: number[] = [];
  if (bytes.length < 127) length.push(bytes.length);
  else {
    length.push(127);
    let rest = bytes.length - 127;
    while (rest >= 128) {
      length.push((rest % 128) + 128);
      rest = Math.floor(rest / 128);
    }
    length.push(rest);
  }
  return Buffer.concat([Buffer.from(length), bytes]);
}
