// buildApp wires the HTTP surface by hand (no autoload, no container): platform routes, then the OIDC provider, the
// login pages and the management API as sibling plugins (each keeps its own body parsers).
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './platform/db.ts';
import type { SecretBox } from './platform/secrets.ts';
import type { InstanceRow } from './instance/queries.ts';
import { readFileSync } from 'node:fs';
import {
  createDualProtocolServer,
  createTlsServer,
  type DualProtocolServer,
  type RequestHandler,
} from './platform/http.ts';
import { requestLogger } from './platform/logger.ts';
import { redirectPagesToIssuer } from './platform/issuer-host.ts';
import { registerHealthRoutes, type Lifecycle } from './platform/health.ts';
import { classifyError } from './platform/error-class.ts';
import { registerMetricsRoutes, type Metrics } from './platform/metrics.ts';
import { RateLimiter, registerIpRateLimit } from './platform/rate-limit.ts';
import { registerOidc } from './oidc/plugin.ts';
import { registerPages } from './web/plugin.ts';
import { registerLoginRoutes } from './login/routes.ts';
import { registerAccountRoutes } from './account/routes.ts';
import { providerPages } from './login/provider-pages.ts';
import { managementOperations, managementReads, registerManagement } from './management/plugin.ts';
import { registerConsole } from './console/routes.ts';
import type { HashAdmission } from './users/passwords.ts';
import type { Mailer } from './mail/mailer.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  secrets: SecretBox;
  instance: InstanceRow;
  schemaVersion: number;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** The bounded password-hashing queue every network request hashes through. */
  hashing: HashAdmission;
  /** The mail outbox. */
  mailer: Mailer;
}

const CREDENTIAL_ROUTES = /^\/(oauth\/v2\/(token|introspect|revoke|par)$|ui\/)/;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BODY_LIMIT = 256 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const tls = config.tls && { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) };
  const serverOptions = { sniffTimeoutMs: 10_000, http2SessionTimeoutMs: 120_000, ...config.http };
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    childLoggerFactory: requestLogger,
    serverFactory: (handler) =>
      tls
        ? createTlsServer(handler as RequestHandler, tls, serverOptions)
        : createDualProtocolServer(handler as RequestHandler, serverOptions),
    // Forwarded headers only from configured proxies: from anyone else they would forge the client's address.
    trustProxy: config.trustedProxies.length ? [...config.trustedProxies] : false,
    bodyLimit: BODY_LIMIT,
    // REST path parameters may hold what the proto allows (200 characters, e.g. an external user ID in
    // RemoveHumanLinkedIDP), percent-encoded: past the router, validation answers a long one with a 400 naming the
    // field instead of the router's bare 414.
    routerOptions: { maxParamLength: 2048 },
    // Fastify's socket timeouts reach only servers it creates itself; the request timeout of every transport is applied
    // by the server factory (platform/http.ts).
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // A caller's request ID is kept when it is well-formed, so logs correlate across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  redirectPagesToIssuer(app, { issuer: config.issuer, tls: Boolean(config.tls), under: '/ui' });
  app.addHook('preClose', (done) => {
    (app.server as unknown as DualProtocolServer).closeHttp2Sessions();
    done();
  });
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const kind = classifyError(error);
    if (kind.kind === 'aborted') {
      // nobody is left to read the answer; below warning, so that alerts on errors mean server failures
      request.log.info('client aborted the request');
      return reply.code(400).send({ error: 'invalid_request', error_description: 'request aborted' });
    }
    if (kind.kind === 'outage') {
      request.log.error({ err: error }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(kind.retryAfter))
        .send({ error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable' });
    }
    const { status } = kind;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    if (kind.retryAfter !== undefined) reply.header('retry-after', String(kind.retryAfter));
    return reply.code(status).send({
      error: status >= 500 ? 'server_error' : 'invalid_request',
      error_description: status >= 500 ? 'unexpected error' : error.message,
    });
  });

  registerHealthRoutes(app, deps.db, deps.schemaVersion, deps.lifecycle);
  registerMetricsRoutes(app, deps.metrics, config.metricsAddress);
  // Per-IP abuse control on every endpoint that takes credentials: token, introspection, revocation, PAR (which
  // authenticates clients as the token endpoint does, so secrets must not be guessed there instead), login forms.
  registerIpRateLimit(
    app,
    new RateLimiter({ limit: config.rateLimit.perIp, windowSeconds: 60 }),
    new Set(config.rateLimit.exempt),
    (request) => request.method === 'POST' && CREDENTIAL_ROUTES.test(request.routeOptions.url ?? ''),
  );
  // The login pages render what the provider shows itself; handed in, so oidc/ never imports login/.
  const oidc = await registerOidc(app, { ...deps, pages: providerPages(deps) });
  // The three page families in one scope of the web kernel: the same cookies, form parser, NUL check and error page.
  await registerPages(app, deps, oidc, [
    registerLoginRoutes,
    registerAccountRoutes,
    (ui, page) => registerConsole(ui, page, managementOperations(deps), managementReads(deps)),
  ]);
  registerManagement(app, deps, {
    verifyBearer: (token, orgId) => oidc.verifyBearer(token, orgId),
    bodyLimit: BODY_LIMIT,
  });
  return app;
}
