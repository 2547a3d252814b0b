// `npm start`: read the configuration, start, and shut down gracefully on SIGTERM/SIGINT. With several workers
// (GATEHOUSE_WORKERS) this process is the primary that runs them (platform/cluster.ts), and each worker runs this file
// again as a server of its own.
import cluster from 'node:cluster';
import { loadConfig, ConfigError, type Config } from './config.ts';
import { announceReady, runPrimary } from './platform/cluster.ts';
import { createStdoutLogger } from './platform/logger.ts';
import { addressInUse, inUse, portTaken } from './platform/port-check.ts';
import { READY, readyFacts } from './platform/ready.ts';

/** A start that cannot succeed stops with one line naming the setting, and exit code 2, as a configuration error. */
function refuse(message: string): never {
  process.stderr.write(`gatehouse: ${message}\n`);
  process.exit(2);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message);
    throw error;
  }
}

async function serve(config: Config): Promise<void> {
  const base = createStdoutLogger(config);
  const log = cluster.isWorker ? base.child({ pid: process.pid }) : base;
  // Loaded here, not at the top: the primary of several workers never serves, and stays small without it.
  const { startServer } = await import('./server.ts');
  const server = await startServer(config, log).catch((error: Error) => {
    const taken = addressInUse(error, config);
    if (taken) refuse(taken);
    log.fatal({ err: error }, `start failed: ${error.message}`);
    process.exit(1);
  });
  // One ready record per start: with several workers the primary says it for all of them, once they all serve.
  if (!cluster.isWorker) log.info(readyFacts(config, server), READY);
  announceReady(server.adminPasswordFile);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: Error) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const config = readConfig();
// Workers share the primary's port, so only the primary asks.
if (cluster.isPrimary && (await portTaken(config.host, config.port))) refuse(inUse(config));
if (config.workers > 1 && cluster.isPrimary) {
  const log = createStdoutLogger(config);
  const { adminPasswordFile } = await runPrimary(config, log);
  log.info(readyFacts(config, { workers: config.workers, adminPasswordFile }), READY);
} else {
  await serve(config);
}
