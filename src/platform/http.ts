// One cleartext port for HTTP/1.1 and HTTP/2 with prior knowledge (gRPC): the first bytes of each connection are
// compared with the HTTP/2 client preface (RFC 9113 §3.4) and the socket handed to the matching server. Node's own
// `allowHTTP1` only works with TLS. With TLS configured, ALPN does this natively.
import http from 'node:http';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import { connectionStart, settingsFrame } from './h2c-preface.ts';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface DualProtocolServer extends http.Server {
  /** Closes open HTTP/2 sessions gracefully; Fastify's close only knows the HTTP/1 side. */
  closeHttp2Sessions(): void;
}

export interface DualProtocolOptions {
  /** How long a new connection may stay silent before its first bytes (slowloris guard). */
  sniffTimeoutMs: number;
  /** Idle timeout of HTTP/2 sessions. */
  http2SessionTimeoutMs: number;
  /** Time for a request's headers and body to arrive, on HTTP/1.1 and on each HTTP/2 stream; then 408. */
  requestTimeoutMs: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS: streams beyond it are refused (RFC 9113 §5.1.2). */
  http2MaxConcurrentStreams: number;
}

type Http2Options = Pick<
  DualProtocolOptions,
  'http2SessionTimeoutMs' | 'requestTimeoutMs' | 'http2MaxConcurrentStreams'
>;

// Without a stream cap one connection could hold 4,000 streams (~50 KB each). The header list is capped at HTTP/1.1's
// own header limit (node's maxHeaderSize, 16 KiB), so no request is larger over HTTP/2 than over HTTP/1.1; nghttp2's
// per-session buffers stay at node's 10 MB maxSessionMemory default.
const http2Settings = (options: Http2Options): http2.ServerOptions => ({
  settings: { maxConcurrentStreams: options.http2MaxConcurrentStreams, maxHeaderListSize: http.maxHeaderSize },
});

/** Node's request timeout, on a server that serves HTTP/1.1. Fastify sets it only on servers it creates itself, not on
 *  a serverFactory's (without it, trickled bodies stayed open past 65 s). The connections check runs often enough that
 *  a request ends within a tenth of the timeout after it. */
function applyRequestTimeout(server: http.Server | http2.Http2SecureServer, requestTimeoutMs: number): void {
  const s = server as http.Server;
  s.requestTimeout = requestTimeoutMs;
  s.headersTimeout = requestTimeoutMs;
  (s as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    30_000,
    Math.max(50, Math.floor(requestTimeoutMs / 10)),
  );
}

export type RequestHandler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** With TLS, ALPN picks HTTP/2 or HTTP/1.1 per connection (RFC 7301); both reach the same handler. */
export function createTlsServer(handler: RequestHandler, tls: TlsFiles, options: Http2Options): DualProtocolServer {
  const server = http2.createSecureServer(
    { ...tls, ...http2Settings(options), allowHTTP1: true },
    closeAfterEarlyResponse(handler) as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  applyRequestTimeout(server, options.requestTimeoutMs);
  server.on('secureConnection', (socket: Socket & { alpnProtocol?: string | false }) => {
    if (socket.alpnProtocol !== 'h2') lingerOnClose(socket);
  });
  const closeHttp2Sessions = guardHttp2(server, options);
  return Object.assign(server, { closeHttp2Sessions }) as unknown as DualProtocolServer;
}

export function createDualProtocolServer(handler: RequestHandler, options: DualProtocolOptions): DualProtocolServer {
  const h1 = http.createServer(closeAfterEarlyResponse(handler) as http.RequestListener) as DualProtocolServer;
  applyRequestTimeout(h1, options.requestTimeoutMs);
  const h2 = http2.createServer(
    http2Settings(options),
    handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  h1.closeHttp2Sessions = guardHttp2(h2, options);

  const h1ConnectionListeners = h1.listeners('connection') as ((socket: Socket) => void)[];
  h1.removeAllListeners('connection');
  const serverSettings = settingsFrame(http2Settings(options).settings!);
  h1.on('connection', (socket: Socket) => {
    let seen = Buffer.alloc(0);
    let settingsSent = false;
    let ackSeen = false;
    let http2Wait: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => socket.destroy(), options.sniffTimeoutMs);
    // Until a server owns the socket its errors are ours: a client's reset in this window would otherwise be an
    // uncaught exception that ends the process.
    const onError = () => socket.destroy();
    const dispatch = (isHttp2: boolean, bytes = seen) => {
      clearTimeout(timer);
      clearTimeout(http2Wait);
      socket.removeListener('readable', onReadable);
      socket.removeListener('close', onClose);
      socket.removeListener('error', onError);
      if (bytes.length) socket.unshift(bytes);
      if (isHttp2) h2.emit('connection', socket);
      else {
        lingerOnClose(socket);
        for (const listener of h1ConnectionListeners) listener.call(h1, socket);
      }
    };
    const onReadable = () => {
      for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) {
        seen = Buffer.concat([seen, chunk]);
      }
      if (!settingsSent) {
        const n = Math.min(seen.length, PREFACE.length);
        if (!seen.subarray(0, n).equals(PREFACE.subarray(0, n))) return dispatch(false);
        if (seen.length < PREFACE.length) return;
        // HTTP/2 requests without :authority (HAProxy's health check): see h2c-preface.ts
        socket.write(serverSettings);
        settingsSent = true;
        // a client that does not acknowledge in time gets nghttp2 as it is (a later ACK then ends the connection)
        http2Wait = setTimeout(handOver, H2_ACK_WAIT_MS);
      }
      const start = connectionStart(seen.subarray(PREFACE.length), authorityOf(socket));
      if (start.acknowledged && start.requested) return handOver();
      if (start.acknowledged && !ackSeen) {
        // an idle client (no request yet) is handed over shortly after its ACK
        ackSeen = true;
        clearTimeout(http2Wait);
        http2Wait = setTimeout(handOver, H2_FIRST_REQUEST_WAIT_MS);
      }
      // before then a client can send at most its first flow-control window of DATA (64 KiB) and headers
      if (seen.length > H2_START_MAX_BYTES) socket.destroy();
    };
    const handOver = () =>
      dispatch(
        true,
        Buffer.concat([PREFACE, connectionStart(seen.subarray(PREFACE.length), authorityOf(socket)).bytes]),
      );
    const onClose = () => {
      clearTimeout(timer);
      clearTimeout(http2Wait);
    };
    socket.on('readable', onReadable);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
  return h1;
}

// Bounds of the start of a cleartext HTTP/2 connection (h2c-preface.ts): the client's ACK of the server's SETTINGS
// (sent at once by conforming clients), then its first request, and the bytes buffered meanwhile.
const H2_ACK_WAIT_MS = 2000;
const H2_FIRST_REQUEST_WAIT_MS = 200;
const H2_START_MAX_BYTES = 256 * 1024;

/** The address the client connected to, as an :authority (host:port, IPv6 in brackets). */
const authorityOf = (socket: Socket) =>
  `${socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress}:${socket.localPort}`;

// Bounds for reading what a client still sends after a response that closes the connection.
const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
const LINGER_MS = 3_000;

/** An HTTP/1.1 response that starts before its request's body has fully arrived closes the connection, as Fastify does
 *  for a body it refuses. connect-es stops reading (and destroys the request) at a message over readMaxBytes; the
 *  unread rest then stalled the keep-alive connection until its timeout reset it. With `Connection: close` the client
 *  knows to open a new connection, and the lingering close below reads the rest so that the client still gets its
 *  answer. */
function closeAfterEarlyResponse(handler: RequestHandler): RequestHandler {
  return (req, res) => {
    if (req instanceof http.IncomingMessage && res instanceof http.ServerResponse && hasBody(req)) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
        if (!req.complete) this.setHeader('connection', 'close');
        return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
      } as typeof res.writeHead;
    }
    handler(req, res);
  };
}

const hasBody = (req: http.IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** Lingering close, as nginx's lingering_close: node destroys the socket right after a `Connection: close` response
 *  (Fastify closes after a body it refused, e.g. over the body limit), and the bytes the client still sends then meet a
 *  reset, which discards the unread response in the client's buffer: it saw EPIPE instead of its 413. Instead the
 *  response is followed by a FIN, and once it is sent, what the client still sends is read and discarded until it
 *  closes, for at most LINGER_MS and DRAIN_MAX_BYTES. */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const linger = () => {
      if (this.readableEnded) return void this.destroy();
      let drained = 0;
      const close = () => {
        clearTimeout(timer);
        this.destroy();
      };
      const timer = setTimeout(close, LINGER_MS);
      this.removeAllListeners('data'); // no further requests on this connection: the HTTP parser is done
      this.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > DRAIN_MAX_BYTES) close();
      });
      this.once('end', close);
      this.once('close', () => clearTimeout(timer));
      this.resume();
    };
    if (this.writableFinished) linger();
    else this.once('finish', linger);
  };
}

/** Idle timeout for HTTP/2 sessions and the request timeout for each stream (node's timeouts only reach HTTP/1),
 *  and a way to close all sessions. */
function guardHttp2(server: http2.Http2Server | http2.Http2SecureServer, options: Http2Options): () => void {
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.setTimeout(options.http2SessionTimeoutMs, () => session.close());
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: http2.ServerHttp2Stream) => {
    if (stream.endAfterHeaders) return; // no body: the request is complete
    // A body still arriving after the timeout (a trickle, or HEADERS whose body never comes) is answered 408 and
    // the stream ended (RFC 9113 §8.1: a response may end a stream whose request is incomplete, then NO_ERROR).
    const timer = setTimeout(() => {
      if (!stream.headersSent) stream.respond({ ':status': 408 }, { endStream: true });
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    }, options.requestTimeoutMs);
    const done = () => clearTimeout(timer);
    stream.once('end', done);
    stream.once('close', done);
  });
  return () => {
    for (const session of sessions) session.close();
  };
}
