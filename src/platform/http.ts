// One cleartext port for HTTP/1.1 and HTTP/2 with prior knowledge (gRPC): the first bytes of each connection are
// compared with the HTTP/2 client preface (RFC 9113 §3.4) and the socket handed to the matching server. Node's own
// `allowHTTP1` only works with TLS (feasibility-findings.md Q2). With TLS configured, ALPN does this natively.
import http from 'node:http';
import http2 from 'node:http2';
import type { Socket } from 'node:net';

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
}

export type RequestHandler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** With TLS, ALPN picks HTTP/2 or HTTP/1.1 per connection (RFC 7301); both reach the same handler. */
export function createTlsServer(handler: RequestHandler, tls: TlsFiles, options: Pick<DualProtocolOptions, 'http2SessionTimeoutMs'>): DualProtocolServer {
  const server = http2.createSecureServer({ ...tls, allowHTTP1: true }, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  const closeHttp2Sessions = trackSessions(server, options.http2SessionTimeoutMs);
  return Object.assign(server, { closeHttp2Sessions }) as unknown as DualProtocolServer;
}

export function createDualProtocolServer(handler: RequestHandler, options: DualProtocolOptions): DualProtocolServer {
  const h1 = http.createServer(handler as http.RequestListener) as DualProtocolServer;
  const h2 = http2.createServer({}, handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void);
  h1.closeHttp2Sessions = trackSessions(h2, options.http2SessionTimeoutMs);

  const h1ConnectionListeners = h1.listeners('connection') as ((socket: Socket) => void)[];
  h1.removeAllListeners('connection');
  h1.on('connection', (socket: Socket) => {
    let seen = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), options.sniffTimeoutMs);
    const dispatch = (isHttp2: boolean) => {
      clearTimeout(timer);
      socket.removeListener('readable', onReadable);
      socket.removeListener('close', onClose);
      if (seen.length) socket.unshift(seen);
      if (isHttp2) h2.emit('connection', socket);
      else for (const listener of h1ConnectionListeners) listener.call(h1, socket);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, PREFACE.length);
      if (!seen.subarray(0, n).equals(PREFACE.subarray(0, n))) dispatch(false);
      else if (seen.length >= PREFACE.length) dispatch(true);
    };
    const onClose = () => clearTimeout(timer);
    socket.on('readable', onReadable);
    socket.on('close', onClose);
  });
  return h1;
}

/** Idle timeout for HTTP/2 sessions (Fastify's own timeouts only reach HTTP/1) and a way to close them all. */
function trackSessions(server: http2.Http2Server | http2.Http2SecureServer, idleTimeoutMs: number): () => void {
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.setTimeout(idleTimeoutMs, () => session.close());
    session.on('close', () => sessions.delete(session));
  });
  return () => {
    for (const session of sessions) session.close();
  };
}
