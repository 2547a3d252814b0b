// Every core: GATEHOUSE_WORKERS processes serve one port through node:cluster. The primary only forks, replaces and
// stops workers and gathers their metrics; each worker is a whole server (src/server.ts) with its own share of the
// pool. The primary accepts connections and hands each socket over before reading from it, so the worker's
// HTTP/1.1-or-h2c sniffing (http.ts) sees the connection's first bytes as a single process does.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

const READY = 'gatehouse:ready';
const METRICS = 'gatehouse:metrics';
// A worker that dies within this time of its start counts as failing to start: its replacements wait longer each
// time (up to MAX_BACKOFF_MS), so a database that is down does not become a fork loop.
const EARLY_DEATH_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;
const METRICS_TIMEOUT_MS = 6000;

interface Message {
  type?: string;
  id?: number;
  body?: string;
  error?: string;
  adminPasswordFile?: string;
}

export const isWorker = (): boolean => cluster.isWorker;

/** In a worker: tells the primary that this worker serves, and where it wrote a generated admin password (only the
 *  worker that created the instance did), for the primary's ready record to name it. */
export function announceReady(adminPasswordFile: string | undefined): void {
  if (cluster.isWorker) process.send?.({ type: READY, adminPasswordFile } satisfies Message);
}

/** In a worker: the metrics of every worker, summed by the primary (prom-client's cluster aggregation), so that a
 *  scrape reaching any worker sees the whole deployment on this port. */
export function shareMetrics(registry: Registry): () => Promise<string> {
  new AggregatorRegistry(); // installs the worker's answer to the primary's collection request
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => done({ error: 'no answer from the primary process' }), METRICS_TIMEOUT_MS);
      const onMessage = (message: Message) => {
        if (message?.type === METRICS && message.id === id) done(message);
      };
      const done = (message: Message) => {
        clearTimeout(timer);
        process.off('message', onMessage);
        if (message.error !== undefined) reject(new Error(message.error));
        else resolve(message.body ?? '');
      };
      process.on('message', onMessage);
      process.send?.({ type: METRICS, id });
    });
}

/** The primary: forks config.workers workers, replaces one that dies, and on SIGTERM/SIGINT lets every worker drain
 *  (its own shutdown: readiness 503, in-flight requests finished). Resolves when all are ready. Exits the process
 *  when every worker has exited after a stop: 0 if all exited cleanly, else 1 (also when one of the first workers
 *  fails to start, as a single process does). Resolves with the admin password file a worker generated, if any. */
export function runPrimary(config: Config, log: Logger): Promise<{ adminPasswordFile?: string }> {
  const aggregator = new AggregatorRegistry();
  const started = new Map<Worker, number>();
  const ready = new Set<Worker>();
  let allReady = false;
  let stopping = false;
  let backoffMs = 0;
  let adminPasswordFile: string | undefined;
  let resolveReady: () => void;
  const readyPromise = new Promise<{ adminPasswordFile?: string }>((resolve) => {
    resolveReady = () => resolve({ adminPasswordFile });
  });

  const fork = () => started.set(cluster.fork(), Date.now());
  cluster.on('message', (worker, message: Message) => {
    if (message?.type === READY) {
      ready.add(worker);
      adminPasswordFile ??= message.adminPasswordFile;
      log.info({ pid: worker.process.pid }, 'worker is ready');
      if (!allReady && ready.size === config.workers) {
        allReady = true;
        resolveReady();
      }
    } else if (message?.type === METRICS) {
      aggregator.clusterMetrics().then(
        (body) => worker.isConnected() && worker.send({ type: METRICS, id: message.id, body }),
        (err: Error) => worker.isConnected() && worker.send({ type: METRICS, id: message.id, error: err.message }),
      );
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? 0);
    const wasReady = ready.delete(worker);
    started.delete(worker);
    if (stopping) {
      if (code !== 0) process.exitCode = 1;
      if (started.size === 0) process.exit();
      return;
    }
    if (!allReady && !wasReady) {
      log.fatal({ pid: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      void stop('start failed', 1);
      return;
    }
    backoffMs = lived < EARLY_DEATH_MS ? Math.min(MAX_BACKOFF_MS, Math.max(500, backoffMs * 2)) : 0;
    log.error({ pid: worker.process.pid, code, signal, replaceInMs: backoffMs }, 'worker died; starting a replacement');
    setTimeout(() => stopping || fork(), backoffMs);
  });

  const stop = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    log.info({ reason, workers: started.size }, 'shutting down');
    if (started.size === 0) process.exit();
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
    // Each worker bounds its own drain; this bounds a worker that hangs anyway.
    const limit = setTimeout(
      () => {
        log.error({ workers: started.size }, 'workers did not stop in time; killing them');
        for (const worker of started.keys()) worker.process.kill('SIGKILL');
        process.exit(1);
      },
      config.shutdownDrainMs + config.shutdownTimeoutMs + 5000,
    );
    limit.unref();
  };
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));
  for (let i = 0; i < config.workers; i++) fork();
  return readyPromise;
}
