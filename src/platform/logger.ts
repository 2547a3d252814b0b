// JSON logs (pino) with secrets redacted wherever they could appear (security.md §21).
import type { FastifyBaseLogger } from 'fastify';
import { pino, type Bindings, type ChildLoggerOptions, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-zitadel-orgid"]', 'res.headers["set-cookie"]',
  '*.password', '*.passwordHash', '*.password_hash', '*.secret', '*.clientSecret', '*.client_secret', '*.secret_hash',
  '*.token', '*.access_token', '*.refresh_token', '*.id_token', '*.assertion', '*.client_assertion', '*.code',
  '*.key', '*.privateKey', '*.private_jwk', '*.masterKey',
];

// Query parameters that carry credentials (end_session's id_token_hint, a token in a URL) are logged redacted.
const SECRET_QUERY = /([?&](?:id_token_hint|access_token|code|token|assertion|client_secret|login_hint_token)=)[^&#]*/gi;

interface LoggedRequest { method?: string; url?: string; host?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }

function serializeRequest(req: LoggedRequest) {
  return { method: req.method, url: req.url?.replace(SECRET_QUERY, '$1[redacted]'), host: req.host ?? req.hostname, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest }, base: { service: 'gatehouse' } }, destination as any);
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Fastify's per-request logger (its childLoggerFactory), made into a pino child on first use. Making a child
 * serializes its bindings through the redaction, whose wildcard paths run on every binding value: the largest cost
 * our stack added to a JWKS request (issue 8 profile), spent on every request although most log nothing at the
 * configured level. The lines, their bindings (reqId) and their redaction are the child's own.
 */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(parent as Logger, bindings, options);
}

class RequestLogger implements FastifyBaseLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string { return this.#child?.level ?? this.#options.level ?? this.#parent.level; }
  set level(level: string) { this.#made().level = level; }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger { return this.#made().child(bindings, options); }
  trace(...args: unknown[]): void { this.#log('trace', args); }
  debug(...args: unknown[]): void { this.#log('debug', args); }
  info(...args: unknown[]): void { this.#log('info', args); }
  warn(...args: unknown[]): void { this.#log('warn', args); }
  error(...args: unknown[]): void { this.#log('error', args); }
  fatal(...args: unknown[]): void { this.#log('fatal', args); }
  silent(): void {}

  #made(): Logger {
    return this.#child ??= this.#parent.child(this.#bindings, this.#options);
  }

  #log(level: Level, args: unknown[]): void {
    const { values } = this.#parent.levels;
    if (!this.#child && values[level]! < values[this.level]!) return;
    const logger = this.#made();
    Reflect.apply(logger[level], logger, args);
  }
}
