// The one place that reads process.env. Everything else receives the frozen Config.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

const boolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const seconds = z.coerce.number().int().positive();
const optionalText = z.string().trim().min(1).optional();

const schema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('localhost'),
    GATEHOUSE_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
    GATEHOUSE_WORKERS: z.coerce.number().int().min(1).max(256).optional(),
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
    GATEHOUSE_DB_POOLING: z.enum(['session', 'transaction']).default('session'),
    GATEHOUSE_DATABASE_DIRECT_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    GATEHOUSE_DATA_DIR: z.string().min(1).default('./data'),
    GATEHOUSE_MASTER_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    GATEHOUSE_ADMIN_USERNAME: z.string().trim().min(1).max(200).default('admin'),
    GATEHOUSE_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(1024).optional(),
    GATEHOUSE_ADMIN_KEY_FILE: optionalText,
    GATEHOUSE_TRUSTED_PROXIES: z.string().default(''),
    GATEHOUSE_TLS_CERT_FILE: optionalText,
    GATEHOUSE_TLS_KEY_FILE: optionalText,
    GATEHOUSE_ACCESS_TOKEN_TTL: seconds.default(12 * 3600),
    GATEHOUSE_ID_TOKEN_TTL: seconds.default(12 * 3600),
    GATEHOUSE_REFRESH_TOKEN_IDLE_TTL: seconds.default(30 * 86400),
    GATEHOUSE_REFRESH_TOKEN_ABSOLUTE_TTL: seconds.default(90 * 86400),
    GATEHOUSE_AUTH_CODE_TTL: seconds.default(60),
    GATEHOUSE_REFRESH_TOKEN_REUSE_GRACE: z.coerce.number().int().min(0).default(10),
    GATEHOUSE_SESSION_IDLE_TTL: seconds.default(24 * 3600),
    GATEHOUSE_SESSION_ABSOLUTE_TTL: seconds.default(14 * 86400),
    GATEHOUSE_CONSOLE_IDLE_TTL: seconds.default(30 * 60),
    GATEHOUSE_KEY_ROTATION_DAYS: z.coerce.number().min(0).default(90),
    GATEHOUSE_KEY_ACTIVATION_DELAY: z.coerce.number().int().min(0).default(600),
    GATEHOUSE_KEY_RELOAD_INTERVAL_MS: z.coerce.number().int().min(50).default(5000),
    GATEHOUSE_ASSERTION_MAX_AGE: seconds.default(3600),
    GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
    GATEHOUSE_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
    GATEHOUSE_SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(0),
    GATEHOUSE_ALLOW_PRIVATE_FETCH: boolean.default(false),
    GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(5),
    GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100000).default(50),
    GATEHOUSE_LOCKOUT_SECONDS: z.coerce.number().int().min(1).max(86400).default(300),
    GATEHOUSE_RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(6000),
    GATEHOUSE_RATE_LIMIT_PER_CLIENT: z.coerce.number().int().min(0).default(3000),
    GATEHOUSE_RATE_LIMIT_EXEMPT: z.string().default(''),
    GATEHOUSE_METRICS_ADDRESS: z
      .string()
      .optional()
      .refine(
        (v) => v === undefined || listenAddress(v) !== undefined,
        'must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464',
      ),
    GATEHOUSE_AUTHORIZE_PER_IP: z.coerce.number().int().min(0).default(300),
    GATEHOUSE_REQUIRE_PAR: boolean.default(false),
    // at most the hour an interaction's cookies live (src/oidc/provider/provider.ts INTERACTION_MAX_AGE)
    GATEHOUSE_INTERACTION_TTL: z.coerce.number().int().min(1).max(3600).default(600),
    GATEHOUSE_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS: z.coerce.number().int().min(1).max(1000).default(100),
    GATEHOUSE_AUTHORIZE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024)
      .default(8 * 1024),
    GATEHOUSE_REGISTRATION_PER_IP: z.coerce.number().int().min(0).default(20),
    GATEHOUSE_HASH_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(8),
    GATEHOUSE_HASH_QUEUE_MAX: z.coerce.number().int().min(0).max(100000).default(64),
    // Credentials go in the URL (smtp://user:pass@host:587); smtp:// upgrades with STARTTLS when offered
    // (?requireTLS=true insists on it), smtps:// speaks TLS from the start
    GATEHOUSE_SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    GATEHOUSE_SMTP_FROM: z
      .string()
      .trim()
      .min(3)
      .max(320)
      .regex(/^[^\r\n]*@[^\r\n]*$/, 'must be an address such as "Gatehouse <noreply@example.com>"')
      .optional(),
    GATEHOUSE_MAIL_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // auto: readable lines when standard output is a terminal (a person reads it), JSON lines otherwise
    GATEHOUSE_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .superRefine((env, ctx) => {
    // Secrets at rest are encrypted with the master key; with the embedded database it can be generated and kept
    // in the data directory, but a shared Postgres needs the same key on every instance, so it must be given.
    if (env.DATABASE_URL && !env.GATEHOUSE_MASTER_KEY) {
      ctx.addIssue({ code: 'custom', path: ['GATEHOUSE_MASTER_KEY'], message: 'is required when DATABASE_URL is set' });
    }
    // The embedded database is one process's (its directory lock refuses a second one), and every worker needs a
    // connection of the pool budget.
    if (env.GATEHOUSE_WORKERS !== undefined && env.GATEHOUSE_WORKERS > 1) {
      if (!env.DATABASE_URL) {
        ctx.addIssue({
          code: 'custom',
          path: ['GATEHOUSE_WORKERS'],
          message: 'must be 1 with the embedded database (one process owns it); set DATABASE_URL for more workers',
        });
      } else if (env.GATEHOUSE_WORKERS > env.DATABASE_POOL_SIZE) {
        ctx.addIssue({
          code: 'custom',
          path: ['GATEHOUSE_WORKERS'],
          message: `must be at most DATABASE_POOL_SIZE (${env.DATABASE_POOL_SIZE}): each worker needs a connection`,
        });
      }
    }
    if (Boolean(env.GATEHOUSE_TLS_CERT_FILE) !== Boolean(env.GATEHOUSE_TLS_KEY_FILE)) {
      const missing = env.GATEHOUSE_TLS_CERT_FILE ? 'GATEHOUSE_TLS_KEY_FILE' : 'GATEHOUSE_TLS_CERT_FILE';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'is required when the other TLS file is set' });
    }
    if (env.GATEHOUSE_ISSUER) {
      const url = new URL(env.GATEHOUSE_ISSUER);
      if (url.search || url.hash || url.pathname !== '/') {
        ctx.addIssue({
          code: 'custom',
          path: ['GATEHOUSE_ISSUER'],
          message: 'must be an origin without path, query or fragment',
        });
      }
    }
  });

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Issuer URL without trailing slash; never derived from request headers, which a client could forge. */
  readonly issuer: string;
  /** Host of the issuer: the instance domain that generated org domains end with, as in ZITADEL. */
  readonly instanceDomain: string;
  /** Worker processes serving the port: GATEHOUSE_WORKERS, or the cores available on PostgreSQL (at most
   *  DATABASE_POOL_SIZE) and 1 on the embedded database. */
  readonly workers: number;
  readonly database:
    | {
        readonly kind: 'postgres';
        readonly url: string;
        /** Connections of this process's pool: DATABASE_POOL_SIZE is the budget of all workers together. */
        readonly poolSize: number;
        readonly connectTimeoutMs: number;
        readonly statementTimeoutMs: number;
        /** 'transaction': DATABASE_URL is a transaction pooler, so no session state goes through it
         *  (src/platform/db.ts); default 'session'. */
        readonly pooling?: 'session' | 'transaction';
        /** PostgreSQL itself, for session-scoped work (migrations' advisory lock) under transaction pooling;
         *  unset: DATABASE_URL. */
        readonly directUrl?: string;
      }
    | { readonly kind: 'embedded'; readonly dataDir: string };
  readonly dataDir: string;
  readonly masterKey: string | undefined;
  readonly admin: {
    readonly userName: string;
    readonly password: string | undefined;
    readonly keyFile: string | undefined;
  };
  readonly trustedProxies: readonly string[];
  /** PEM files; when set the port speaks TLS and negotiates HTTP/2 or HTTP/1.1 by ALPN. */
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly ttl: {
    readonly accessToken: number;
    readonly idToken: number;
    readonly refreshTokenIdle: number;
    readonly refreshTokenAbsolute: number;
    readonly authorizationCode: number;
    /** Seconds in which a rotated refresh token presented again is refused without revoking its grant. */
    readonly refreshTokenReuseGrace: number;
    readonly sessionIdle: number;
    readonly sessionAbsolute: number;
    /** Seconds a console session lasts without a request; it ends after 12 hours in any case. */
    readonly consoleIdle: number;
    /** Seconds a pending authorization request (interaction) is kept after its start or its user's last form post. */
    readonly interaction: number;
  };
  readonly keyRotationDays: number;
  readonly keys: {
    /** Seconds a new signing key is published before it signs (RP JWKS caches must see it first). */
    readonly activationDelay: number;
    /** How often every process re-reads the key table, so a rotation reaches all instances without restart. */
    readonly reloadIntervalMs: number;
  };
  /** Maximum age of a JWT-profile assertion's iat, seconds (ZITADEL's default: one hour). */
  readonly assertionMaxAge: number;
  /** Interval of the sweep that deletes expired OIDC rows. */
  readonly oidcSweepIntervalMs: number;
  readonly shutdownTimeoutMs: number;
  /** After SIGTERM: how long /readyz answers 503 while requests are still served, so a balancer stops sending. */
  readonly shutdownDrainMs: number;
  readonly allowPrivateFetch: boolean;
  /** Failed-login lockout, against password guessing: failures within `seconds` per account and per IP, then locked for
   *  `seconds`. */
  readonly lockout: { readonly maxAttempts: number; readonly ipMaxAttempts: number; readonly seconds: number };
  /** Requests per minute (0 = off): per client IP on the credential endpoints, per authenticated client on token
   *  and introspection; exempt addresses are never limited. */
  readonly rateLimit: { readonly perIp: number; readonly perClient: number; readonly exempt: readonly string[] };
  /** Authorization requests per minute per client address (0 = off): each may store a pending interaction. */
  readonly authorizePerIp: number;
  /** Every app must push its authorization requests first (RFC 9126 §5); an app may also require it alone. */
  readonly requirePar: boolean;
  /** Transport bounds: time for a request's headers and body to arrive (HTTP/1.1 and per HTTP/2 stream), and the
   *  concurrent streams one HTTP/2 connection may open. */
  readonly http: { readonly requestTimeoutMs: number; readonly http2MaxConcurrentStreams: number };
  /** Largest authorization request (its query), in bytes, on every transport. */
  readonly authorizeMaxBytes: number;
  /** Self-registrations (prompt=create) per client address and hour, counted per instance (0 = off). */
  readonly registrationPerIp: number;
  /** Bounds of the password-hashing queue: places per address or API caller, and beyond the hashes that run at once
   *  overall; what is over them is refused with 503 instead of queued. */
  readonly hashing: { readonly perAddress: number; readonly queue: number };
  /** Outgoing mail: SMTP, or .eml files under the data directory without it; the sender polls the outbox every
   *  pollMs. */
  readonly mail: { readonly smtpUrl: string | undefined; readonly from: string; readonly pollMs: number };
  readonly logLevel: string;
  /** 'auto': readable lines on a terminal, JSON lines otherwise (platform/log-pretty.ts). */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** Where /metrics is served instead of the public port, which need not show traffic volumes; undefined: on the public
   *  port. */
  readonly metricsAddress: { readonly host: string; readonly port: number } | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as in most twelve-factor tools (docker-compose passes `VAR=` through).
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0] ?? 'environment')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const scheme = e.GATEHOUSE_TLS_CERT_FILE ? 'https' : 'http';
  const issuer = (e.GATEHOUSE_ISSUER ?? `${scheme}://localhost:${e.PORT}`).replace(/\/$/, '');
  const workers = e.DATABASE_URL ? (e.GATEHOUSE_WORKERS ?? Math.min(availableParallelism(), e.DATABASE_POOL_SIZE)) : 1;
  return deepFreeze({
    port: e.PORT,
    host: e.HOST,
    issuer,
    instanceDomain: new URL(issuer).hostname,
    workers,
    database: e.DATABASE_URL
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          poolSize: Math.floor(e.DATABASE_POOL_SIZE / workers),
          connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
          statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
          pooling: e.GATEHOUSE_DB_POOLING,
          directUrl: e.GATEHOUSE_DATABASE_DIRECT_URL,
        }
      : { kind: 'embedded', dataDir: e.GATEHOUSE_DATA_DIR },
    dataDir: e.GATEHOUSE_DATA_DIR,
    masterKey: e.GATEHOUSE_MASTER_KEY,
    admin: {
      userName: e.GATEHOUSE_ADMIN_USERNAME,
      password: e.GATEHOUSE_ADMIN_PASSWORD,
      keyFile: e.GATEHOUSE_ADMIN_KEY_FILE,
    },
    trustedProxies: list(e.GATEHOUSE_TRUSTED_PROXIES),
    tls:
      e.GATEHOUSE_TLS_CERT_FILE && e.GATEHOUSE_TLS_KEY_FILE
        ? { certFile: e.GATEHOUSE_TLS_CERT_FILE, keyFile: e.GATEHOUSE_TLS_KEY_FILE }
        : undefined,
    ttl: {
      accessToken: e.GATEHOUSE_ACCESS_TOKEN_TTL,
      idToken: e.GATEHOUSE_ID_TOKEN_TTL,
      refreshTokenIdle: e.GATEHOUSE_REFRESH_TOKEN_IDLE_TTL,
      refreshTokenAbsolute: e.GATEHOUSE_REFRESH_TOKEN_ABSOLUTE_TTL,
      authorizationCode: e.GATEHOUSE_AUTH_CODE_TTL,
      refreshTokenReuseGrace: e.GATEHOUSE_REFRESH_TOKEN_REUSE_GRACE,
      sessionIdle: e.GATEHOUSE_SESSION_IDLE_TTL,
      sessionAbsolute: e.GATEHOUSE_SESSION_ABSOLUTE_TTL,
      consoleIdle: e.GATEHOUSE_CONSOLE_IDLE_TTL,
      interaction: e.GATEHOUSE_INTERACTION_TTL,
    },
    keyRotationDays: e.GATEHOUSE_KEY_ROTATION_DAYS,
    keys: { activationDelay: e.GATEHOUSE_KEY_ACTIVATION_DELAY, reloadIntervalMs: e.GATEHOUSE_KEY_RELOAD_INTERVAL_MS },
    assertionMaxAge: e.GATEHOUSE_ASSERTION_MAX_AGE,
    oidcSweepIntervalMs: e.GATEHOUSE_OIDC_SWEEP_INTERVAL_MS,
    shutdownTimeoutMs: e.GATEHOUSE_SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.GATEHOUSE_SHUTDOWN_DRAIN_MS,
    allowPrivateFetch: e.GATEHOUSE_ALLOW_PRIVATE_FETCH,
    lockout: {
      maxAttempts: e.GATEHOUSE_LOCKOUT_MAX_ATTEMPTS,
      ipMaxAttempts: e.GATEHOUSE_LOCKOUT_IP_MAX_ATTEMPTS,
      seconds: e.GATEHOUSE_LOCKOUT_SECONDS,
    },
    rateLimit: {
      perIp: e.GATEHOUSE_RATE_LIMIT_PER_IP,
      perClient: e.GATEHOUSE_RATE_LIMIT_PER_CLIENT,
      exempt: list(e.GATEHOUSE_RATE_LIMIT_EXEMPT),
    },
    authorizePerIp: e.GATEHOUSE_AUTHORIZE_PER_IP,
    requirePar: e.GATEHOUSE_REQUIRE_PAR,
    http: {
      requestTimeoutMs: e.GATEHOUSE_REQUEST_TIMEOUT_MS,
      http2MaxConcurrentStreams: e.GATEHOUSE_HTTP2_MAX_CONCURRENT_STREAMS,
    },
    authorizeMaxBytes: e.GATEHOUSE_AUTHORIZE_MAX_BYTES,
    registrationPerIp: e.GATEHOUSE_REGISTRATION_PER_IP,
    hashing: { perAddress: e.GATEHOUSE_HASH_PER_ADDRESS, queue: e.GATEHOUSE_HASH_QUEUE_MAX },
    mail: {
      smtpUrl: e.GATEHOUSE_SMTP_URL,
      from: e.GATEHOUSE_SMTP_FROM ?? `Gatehouse <noreply@${new URL(issuer).hostname}>`,
      pollMs: e.GATEHOUSE_MAIL_POLL_MS,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.GATEHOUSE_LOG_FORMAT,
    metricsAddress: e.GATEHOUSE_METRICS_ADDRESS === undefined ? undefined : listenAddress(e.GATEHOUSE_METRICS_ADDRESS),
  });
}

/** host:port with an explicit port 1-65535 (IPv6 in brackets); the host as listen() takes it. */
function listenAddress(value: string): { host: string; port: number } | undefined {
  // a scheme without a default port, so that every port stays explicit (http:// would drop :80)
  const url = URL.parse(`tcp://${value}`);
  if (!url?.hostname || !url.port || url.port === '0' || url.host !== value) return undefined;
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) };
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
