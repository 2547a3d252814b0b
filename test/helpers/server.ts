// Starts the real Gatehouse server (the same startServer as `npm start`) on a loopback port, on a fresh database.
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export const TEST_MASTER_KEY = 'test-master-key-0123456789abcdef0123456789';
export const ADMIN_PASSWORD = 'Admin-Password-1';

export interface TestServer extends RunningServer {
  database: TestDatabase;
  /** Every log line the server wrote, for assertions about what is (not) logged. */
  logs: string[];
  /** Stops the server and drops its database. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function testEnv(
  port: number,
  database: TestDatabase,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEHOUSE_ISSUER: `http://127.0.0.1:${port}`,
    GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY,
    GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'info',
    // Rate limits are off for loopback in tests unless a test asks for them.
    GATEHOUSE_RATE_LIMIT_EXEMPT: '127.0.0.1,::1,::ffff:127.0.0.1',
    // One process unless a test asks for workers (test/production/workers.test.ts): the default follows the cores.
    GATEHOUSE_WORKERS: '1',
    ...database.env,
    ...overrides,
  };
}

export async function startTestServer(
  options: { env?: Record<string, string>; database?: TestDatabase; issuerHost?: string } = {},
): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const port = await freePort();
  // `localhost` for WebAuthn, whose RP ID must be a domain, not an IP address
  const issuer: Record<string, string> = options.issuerHost
    ? { GATEHOUSE_ISSUER: `http://${options.issuerHost}:${port}` }
    : {};
  const config = loadConfig(testEnv(port, database, { ...issuer, ...options.env }));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const server = await startServer(config, createLogger(config.logLevel, sink));
  return {
    ...server,
    database,
    logs,
    async stop() {
      await server.close();
      if (!options.database) await database.drop();
    },
  };
}
