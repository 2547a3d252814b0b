// JSON logs (pino) with secrets redacted wherever they could appear: no secret may reach a log. On a terminal the same
// redacted lines are shown readable (log-pretty.ts).
import type { FastifyBaseLogger } from 'fastify';
import {
  pino,
  stdSerializers,
  type Bindings,
  type ChildLoggerOptions,
  type DestinationStream,
  type Logger,
} from 'pino';
import type { Config } from '../config.ts';
import { stdoutDestination } from './log-pretty.ts';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-zitadel-orgid"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.passwordHash',
  '*.password_hash',
  '*.secret',
  '*.clientSecret',
  '*.client_secret',
  '*.secret_hash',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.assertion',
  '*.client_assertion',
  '*.code',
  '*.key',
  '*.privateKey',
  '*.private_jwk',
  '*.masterKey',
];

// Query parameters that carry credentials (end_session's id_token_hint, a token in a URL) are logged redacted.
const SECRET_QUERY =
  /([?&](?:id_token_hint|access_token|code|token|assertion|client_secret|login_hint_token)=)[^&#]*/gi;

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: req.url?.replace(SECRET_QUERY, '$1[redacted]'),
    host: req.host ?? req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

// Keys named like a password or a secret are redacted at any depth of a record (e.g. `newPassword`, `app.clientSecret`,
// `a.b.userPassword`); pino's redact paths cannot say "any depth". The walk runs on the record's own object before
// serializers (formatters.log): it descends into plain objects and arrays only, so the hot path's request lines (a
// Fastify request or reply, turned into a few fields by their serializers) cost a key test or two. Errors get the same
// walk after their serializer. A record is copied where something is redacted, never changed.
const SECRET_KEY = /password|secret/i;
const CENSOR = '[redacted]';
// Deeper than this, a nested object is redacted whole instead of walked (a cycle or a pathological record).
const MAX_DEPTH = 32;

const walkable = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
};

export function redactSecretKeys<T extends object>(record: T, depth = 0): T {
  let copy: Record<string, unknown> | undefined;
  const source = record as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const value = source[key];
    let next = value;
    if (SECRET_KEY.test(key) && value !== undefined) next = CENSOR;
    else if (walkable(value)) next = depth >= MAX_DEPTH ? CENSOR : redactSecretKeys(value, depth + 1);
    if (next === value) continue;
    copy ??= Array.isArray(record) ? ([...record] as never) : { ...source };
    copy[key] = next;
  }
  return (copy ?? record) as T;
}

function serializeError(error: Error): unknown {
  const serialized: unknown = stdSerializers.err(error);
  return typeof serialized === 'object' && serialized !== null ? redactSecretKeys(serialized) : serialized;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      formatters: { log: (record) => redactSecretKeys(record) },
      serializers: { req: serializeRequest, err: serializeError },
      base: { service: 'gatehouse' },
    },
    destination,
  );
}

/** The server's log on standard output, in the format GATEHOUSE_LOG_FORMAT asks for. */
export function createStdoutLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return createLogger(config.logLevel, stdoutDestination(config.logFormat, config.logLevel));
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Fastify's per-request logger (its childLoggerFactory), made into a pino child on first use. Making a child serializes
 * its bindings through the redaction, whose wildcard paths run on every binding value: the largest cost our stack added
 * to a JWKS request when profiled, spent on every request although most log nothing at the configured level. The lines,
 * their bindings (reqId) and their redaction are the child's own.
 */
export function requestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
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

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#made().level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  silent(): void {}

  #made(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    const { values } = this.#parent.levels;
    if (!this.#child && values[level]! < values[this.level]!) return;
    const logger = this.#made();
    Reflect.apply(logger[level], logger, args);
  }
}
