// `npm start`: read the configuration, start, and shut down gracefully on SIGTERM/SIGINT.
import { loadConfig, ConfigError, type Config } from './config.ts';
import { createLogger } from './platform/logger.ts';
import { startServer } from './server.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`gatehouse: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const server = await startServer(config, log).catch((error: Error) => {
    log.fatal({ err: error }, `start failed: ${error.message}`);
    process.exit(1);
  });
  log.info({ url: server.url, issuer: config.issuer, database: config.database.kind }, 'gatehouse is ready');
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

await main();
