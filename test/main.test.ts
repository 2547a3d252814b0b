// `npm start` as an operator runs it: a separate process, signals, configuration errors, the data dir lock.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../src/platform/db.ts';
import { createTestDatabase } from './helpers/database.ts';
import { spawnGatehouse, waitForOk } from './helpers/process.ts';
import { freePort, startTestServer, testEnv } from './helpers/server.ts';

describe('the gatehouse process', () => {
  const databases: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  it('becomes ready, and on SIGTERM shuts down cleanly with exit code 0', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const port = await freePort();
    const proc = spawnGatehouse(testEnv(port, database));
    await waitForOk(`http://127.0.0.1:${port}/readyz`, 30_000);
    proc.child.kill('SIGTERM');
    expect(await proc.exited(15_000)).toBe(0);
    expect(proc.output()).toContain('shutting down');
  });

  it('stops with exit code 2 and names the variable when the configuration is invalid', async () => {
    const proc = spawnGatehouse({ PORT: 'not-a-port', GATEHOUSE_MASTER_KEY: 'x' });
    expect(await proc.exited()).toBe(2);
    expect(proc.output()).toMatch(/PORT: /);
    expect(proc.output()).toMatch(/GATEHOUSE_MASTER_KEY: must be at least 32 characters/);
  });

  it('stops with exit code 1 and names GATEHOUSE_MASTER_KEY when the key does not open the signing keys', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    // the first start seals the signing key with the test's master key
    await (await startTestServer({ database })).stop();
    const port = await freePort();
    const proc = spawnGatehouse(
      testEnv(port, database, { GATEHOUSE_MASTER_KEY: 'another-master-key-0123456789abcdef0123' }),
    );
    expect(await proc.exited(30_000)).toBe(1);
    expect(proc.output()).toMatch(
      /"msg":"start failed: signing key \S+ does not open with this master key: GATEHOUSE_MASTER_KEY/,
    );
  });

  it('refuses several workers on the embedded database, which one process owns', async () => {
    const proc = spawnGatehouse({ GATEHOUSE_WORKERS: '2', GATEHOUSE_DATA_DIR: '/nonexistent/gatehouse' });
    expect(await proc.exited()).toBe(2);
    expect(proc.output()).toMatch(/GATEHOUSE_WORKERS: must be 1 with the embedded database/);
  });

  it('with several workers, stops with exit code 1 when the first workers cannot start', async () => {
    const port = await freePort();
    const closed = await freePort();
    const proc = spawnGatehouse({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `postgres://gatehouse@127.0.0.1:${closed}/gatehouse`,
      GATEHOUSE_MASTER_KEY: 'k'.repeat(32),
      GATEHOUSE_WORKERS: '2',
    });
    expect(await proc.exited(30_000)).toBe(1);
    expect(proc.output()).toContain('a worker failed to start; stopping');
    expect(proc.output()).toContain('ECONNREFUSED');
  });

  it('refuses to open an embedded data directory that another process holds', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    if (database.database.kind !== 'embedded') {
      // PostgreSQL mode: the same lock applies to GATEHOUSE_DATA_DIR when DATABASE_URL is unset.
      database.env = { GATEHOUSE_DATA_DIR: (await import('node:fs')).mkdtempSync('/tmp/gatehouse-lock-') };
    }
    const holder = await openDb({ kind: 'embedded', dataDir: database.env.GATEHOUSE_DATA_DIR! });
    try {
      const port = await freePort();
      const env = testEnv(port, database);
      delete env.DATABASE_URL;
      const proc = spawnGatehouse(env);
      expect(await proc.exited()).toBe(1);
      expect(proc.output()).toMatch(new RegExp(`in use by process ${process.pid}`));
    } finally {
      await holder.close();
    }
  });

  it('lets an in-flight request finish when shutting down', async () => {
    const server = await startTestServer({ env: { DATABASE_POOL_SIZE: '1' } });
    // Hold the only database connection so that /readyz is in flight when the shutdown starts.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const holding = server.db.tx(async () => held);
    const inFlight = fetch(`${server.url}/readyz`);
    await new Promise((r) => setTimeout(r, 200));
    const closing = server.close();
    await new Promise((r) => setTimeout(r, 200));
    release();
    await holding;
    const res = await inFlight;
    expect(res.status).toBe(200);
    await closing;
    await server.database.drop();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});

describe('draining on shutdown', () => {
  it('reports not ready but keeps serving for GATEHOUSE_SHUTDOWN_DRAIN_MS, then closes', async () => {
    const server = await startTestServer({ env: { GATEHOUSE_SHUTDOWN_DRAIN_MS: '800' } });
    const closing = server.close();
    await new Promise((r) => setTimeout(r, 100));
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'shutting down' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await closing;
    await server.database.drop();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});

describe('memory settings', () => {
  it('are the same for npm start and the container image (V8 heap sizing, malloc arenas and mmap threshold)', () => {
    const read = (file: string) => readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8');
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    const dockerfile = read('Dockerfile');
    const flags = start.split(' ').filter((arg) => arg.startsWith('--'));
    expect(flags.length).toBeGreaterThan(0);
    // the image passes the flags NODE_OPTIONS accepts there (so they can be overridden), the V8-only ones in CMD
    const nodeOptions = /^ENV NODE_OPTIONS="([^"]*)"/m.exec(dockerfile)?.[1]?.split(' ') ?? [];
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect([...nodeOptions, ...cmd.filter((arg) => arg.startsWith('--'))]).toEqual(flags);
    const malloc = start.split(' ').filter((word) => word.startsWith('MALLOC_'));
    expect(malloc.map((word) => word.split('=')[0])).toEqual(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
    for (const setting of malloc) expect(dockerfile).toMatch(new RegExp(`^\\s+${setting}( \\\\)?$`, 'm'));
  });
});
