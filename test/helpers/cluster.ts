// The production topology on loopback, from the files operators deploy: three Gatehouse processes behind HAProxy
// (deploy/haproxy.cfg), each on PgBouncer in transaction pooling (deploy/pgbouncer.ini) in front of one PostgreSQL
// database, migrations on the direct connection. docs/operations.md ("The production topology") describes it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startHaproxyFromFile, type Haproxy } from './haproxy.ts';
import { until } from './load.ts';
import { deployedSettings, startPgBouncer, type PgBouncer } from './pgbouncer.ts';
import { spawnGatehouse, waitForOk, type GatehouseProcess } from './process.ts';
import { freePort, testEnv } from './server.ts';
import { jwtProfileToken } from './tokens.ts';

export const DEPLOY_DIR = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** What every node runs with besides its port and database: the settings of docker-compose.ha.yml's nodes. */
export const NODE_SETTINGS = {
  GATEHOUSE_DB_POOLING: 'transaction',
  // longer than HAProxy takes to see /readyz fail (inter 1s, fall 2)
  GATEHOUSE_SHUTDOWN_DRAIN_MS: '5000',
};

export interface Node {
  url: string;
  port: number;
  process: GatehouseProcess;
}

export interface Cluster {
  /** The balancer's URL, which is the issuer. */
  url: string;
  nodes: Node[];
  haproxy: Haproxy;
  bouncer: PgBouncer;
  database: TestDatabase;
  /** The environment node `i` runs with (also what the CLI on that node's host would use). */
  env(i: number): Record<string, string>;
  /** A token of the admin service account (IAM_OWNER). */
  adminToken(): Promise<string>;
  /** Starts node `i` again on its port after it exited; resolves when the balancer has it UP. */
  restart(i: number): Promise<void>;
  /** Resolves when the balancer reports every node UP (bounded). */
  allUp(): Promise<void>;
  stop(): Promise<void>;
}

/** `extraHaproxy`: further HAProxy sections of the test's own (e.g. a backend checking over HTTP/1.1). */
export async function startCluster(
  options: { env?: Record<string, string>; extraHaproxy?: (ports: number[]) => string[] } = {},
): Promise<Cluster> {
  const database = await createTestDatabase();
  const direct = database.env.DATABASE_URL!;
  const bouncer = await startPgBouncer(process.env.DATABASE_URL!, {
    settings: deployedSettings(join(DEPLOY_DIR, 'pgbouncer.ini')),
  });
  const ports = [await freePort(), await freePort(), await freePort()];
  const haproxy = await startHaproxyFromFile({
    file: join(DEPLOY_DIR, 'haproxy.cfg'),
    backend: 'nodes',
    bindVariable: 'GATEHOUSE_BIND',
    env: Object.fromEntries(ports.map((port, i) => [`GATEHOUSE_NODE${i + 1}`, `127.0.0.1:${port}`])),
    extra: options.extraHaproxy?.(ports),
  });
  const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-cluster-')), 'admin.json');
  const env = (i: number) =>
    testEnv(ports[i]!, database, {
      ...NODE_SETTINGS,
      GATEHOUSE_ISSUER: haproxy.url,
      DATABASE_URL: bouncer.url(direct),
      GATEHOUSE_DATABASE_DIRECT_URL: direct,
      GATEHOUSE_TRUSTED_PROXIES: '127.0.0.1',
      GATEHOUSE_ADMIN_KEY_FILE: keyPath,
      LOG_LEVEL: 'warn',
      ...options.env,
    });
  const nodes: Node[] = ports.map((port, i) => ({
    port,
    url: `http://127.0.0.1:${port}`,
    process: spawnGatehouse(env(i)),
  }));

  const allUp = () =>
    until(
      async () => (await haproxy.servers()).every((s) => s.status === 'UP' && s.checkStatus === 'L7OK'),
      30_000,
      'every node UP at the balancer',
    );
  const stop = async () => {
    for (const node of nodes) node.process.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.process.exited()));
    await haproxy.stop();
    await bouncer.stop();
    await database.drop();
  };
  try {
    // all three start at once on the fresh database: migrations and the first start run once
    await Promise.all(nodes.map((node) => waitForOk(`${node.url}/readyz`, 60_000)));
    await allUp();
  } catch (error) {
    const output = nodes.map((node, i) => `node${i + 1}: ${node.process.output().slice(-2000)}`).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  const target = { url: haproxy.url, config: { issuer: haproxy.url } };
  return {
    url: haproxy.url,
    nodes,
    haproxy,
    bouncer,
    database,
    env,
    adminToken: () => jwtProfileToken(target, JSON.parse(readFileSync(keyPath, 'utf8'))),
    async restart(i) {
      nodes[i]!.process = spawnGatehouse(env(i));
      await waitForOk(`${nodes[i]!.url}/readyz`, 60_000);
      const name = `node${i + 1}`;
      await until(
        async () => (await haproxy.servers()).find((s) => s.name === name)?.status === 'UP',
        30_000,
        `${name} UP again`,
      );
    },
    allUp,
    stop,
  };
}
