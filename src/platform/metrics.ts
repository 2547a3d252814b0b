// Prometheus metrics. One registry per app instance, so several servers in one process (tests) never mix their numbers.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isWorker, shareMetrics } from './cluster.ts';
import type { Db } from './db.ts';

export interface Metrics {
  registry: Registry;
  /** The exposition text: this process's, or in a worker every worker's, summed (cluster.ts). */
  text(): Promise<string>;
  /** Tokens issued at the token and authorization endpoints, by grant type. */
  tokensIssued: Counter<'grant'>;
  /** Password logins, by result (success, failure, locked; busy: shed by the hashing queue's global bound;
   *  limited: refused over the address's own share of it). */
  logins: Counter<'result'>;
  /** Rows removed by the background sweep of expired OIDC artefacts, by model. */
  sweptRows: Counter<'model'>;
}

/** `hashing`: the counts of the password-hashing queue (src/users/passwords.ts HashAdmission). */
export function createMetrics(
  db: Db,
  hashing: { stats: { hashed: number; shed: number; overShare: number } },
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gatehouse_' });
  const pool = db.pool;
  new Gauge({
    name: 'gatehouse_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  new Gauge({
    name: 'gatehouse_db_queries_total',
    help: 'Database queries sent by this process',
    registers: [registry],
    collect() {
      this.set(db.stats.queries);
    },
  });
  new Gauge({
    name: 'gatehouse_event_log_sequence',
    help: 'Latest position of the event log',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      // Out of band, like readiness: a scrape must not queue behind business requests.
      const sequence = await db.ping('SELECT coalesce(max(sequence), 0)::text AS v FROM events').catch(() => undefined);
      if (sequence !== undefined) this.set(Number(sequence));
    },
  });
  new Gauge({
    name: 'gatehouse_password_hashes_total',
    help:
      'argon2id hashes and verifications run for network requests (run), ' +
      'requests shed because the hashing queue was full (shed), ' +
      "and requests refused over their address's or caller's share of it (share)",
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.set({ outcome: 'run' }, hashing.stats.hashed);
      this.set({ outcome: 'shed' }, hashing.stats.shed);
      this.set({ outcome: 'share' }, hashing.stats.overShare);
    },
  });
  return {
    registry,
    text: isWorker() ? shareMetrics(registry) : () => registry.metrics(),
    tokensIssued: new Counter({
      name: 'gatehouse_tokens_issued_total',
      help: 'Tokens issued, by grant type',
      labelNames: ['grant'],
      registers: [registry],
    }),
    logins: new Counter({
      name: 'gatehouse_logins_total',
      help: 'Password logins, by result',
      labelNames: ['result'],
      registers: [registry],
    }),
    sweptRows: new Counter({
      name: 'gatehouse_swept_rows_total',
      help: 'Expired rows removed by the background sweep',
      labelNames: ['model'],
      registers: [registry],
    }),
  };
}

/**
 * Request counts and latencies per route and status, and the /metrics endpoint: on the public port, or, with an
 * address (GATEHOUSE_METRICS_ADDRESS), only on a listener of its own there, which opens and closes with the app.
 */
export function registerMetricsRoutes(
  app: FastifyInstance,
  metrics: Metrics,
  address?: { host: string; port: number },
): void {
  const requests = new Counter({
    name: 'gatehouse_http_requests_total',
    help: 'HTTP requests',
    labelNames: ['method', 'route', 'status'],
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics.registry],
  });
  // Fastify runs onResponse on the raw response's 'finish', so it also covers the routes handed to oidc-provider
  // (reply.hijack), and times the request from its arrival with its own clock (reply.elapsedTime).
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  if (address) {
    serveMetricsAt(app, metrics, address);
    return;
  }
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.text();
  });
}

// Traffic volumes are nobody's business on the public port. A bare node:http server: one read-only route, no body,
// nothing of the public app's stack. It listens before the app does, so a taken address fails the start, and closes
// with the app (shutdown, or a failed start).
function serveMetricsAt(app: FastifyInstance, metrics: Metrics, address: { host: string; port: number }): void {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.text().then(
      (body) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      (err: Error) => {
        app.log.error({ err }, 'metrics collection failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 10_000;
  app.addHook('onReady', async () => {
    server.listen(address.port, address.host);
    await once(server, 'listening');
    app.log.info({ address: server.address() }, 'metrics served on their own address');
  });
  app.addHook('onClose', async () => {
    if (!server.listening) return;
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  });
}
