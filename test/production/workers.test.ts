// Every core: GATEHOUSE_WORKERS processes on one port, as `npm start` runs them. Two workers share the port over
// HTTP/1.1 and h2c; a worker that dies is replaced while the other serves; SIGTERM drains every worker; the background
// sweep and the signing-key rotation run once per period across all workers of two nodes.
import http from 'node:http';
import http2 from 'node:http2';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/platform/db.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sleep, startLoad, until } from '../helpers/load.ts';
import { assertion } from '../helpers/oidc.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { spawnGatehouse, waitForOk, type GatehouseProcess } from '../helpers/process.ts';
import { freePort, testEnv } from '../helpers/server.ts';

interface LogLine {
  time: number;
  pid?: number;
  msg?: string;
  signal?: string;
  job?: string;
}

const lines = (proc: GatehouseProcess): LogLine[] =>
  proc
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

const readyWorkers = (proc: GatehouseProcess) =>
  lines(proc)
    .filter((l) => l.msg === 'worker is ready')
    .map((l) => l.pid!);

/** The workers that logged a completed request. */
const servingPids = (proc: GatehouseProcess) =>
  new Set(
    lines(proc)
      .filter((l) => l.msg === 'request completed')
      .map((l) => l.pid),
  );

/** One request on a connection of its own, so that the primary hands each to a worker anew. */
function request(port: number, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        timeout: 15_000,
        headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

/** GET over HTTP/2 with prior knowledge (h2c, as gRPC clients speak) on a connection of its own. */
function h2cGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':path': path });
    stream.on('response', (headers) => {
      stream.resume();
      stream.on('end', () => {
        session.close();
        resolve(Number(headers[':status']));
      });
    });
    stream.on('error', reject);
    stream.setTimeout(15_000, () => stream.close());
    stream.end();
  });
}

describe.runIf(isPostgres)('GATEHOUSE_WORKERS: worker processes on one port', () => {
  const databases: TestDatabase[] = [];
  const procs: GatehouseProcess[] = [];
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const d of databases) await d.drop();
  });

  async function start(env: Record<string, string> = {}, database?: TestDatabase) {
    const db = database ?? (await createTestDatabase());
    if (!database) databases.push(db);
    const port = await freePort();
    const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-workers-')), 'admin.json');
    const proc = spawnGatehouse(
      testEnv(port, db, { GATEHOUSE_WORKERS: '2', GATEHOUSE_ADMIN_KEY_FILE: keyPath, ...env }),
    );
    procs.push(proc);
    await waitForOk(`http://127.0.0.1:${port}/readyz`, 60_000);
    await until(async () => readyWorkers(proc).length === 2, 30_000, 'both workers ready');
    return { port, proc, db, keyPath };
  }

  /** A JWT-profile token request (RSA verify and sign: the CPU-bound path) for the admin service account. */
  async function tokenBody(port: number, keyPath: string): Promise<string> {
    const key = JSON.parse(readFileSync(keyPath, 'utf8'));
    return new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await assertion(key, `http://127.0.0.1:${port}`),
      scope: 'openid',
    }).toString();
  }

  it('two workers serve one port, over HTTP/1.1 and h2c alike, with one /metrics for both', async () => {
    const { port, proc } = await start();
    const [a, b] = readyWorkers(proc);
    expect(a).not.toBe(b);
    const h1 = await Promise.all(
      Array.from({ length: 40 }, () => request(port, 'GET', '/.well-known/openid-configuration')),
    );
    expect(h1.every((s) => s === 200)).toBe(true);
    const h2 = await Promise.all(Array.from({ length: 20 }, () => h2cGet(port, '/.well-known/openid-configuration')));
    expect(h2.every((s) => s === 200)).toBe(true);
    expect(servingPids(proc)).toEqual(new Set([a, b]));
    // /metrics sums both workers: every request above counted once, whichever worker answers the scrape
    const discoveries = /gatehouse_http_requests_total\{method="GET",route="\/.well-known\/[^"]+",status="200"\} (\d+)/;
    for (let i = 0; i < 4; i++) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(Number(discoveries.exec(text)?.[1])).toBe(60);
    }
    proc.child.kill('SIGTERM');
    expect(await proc.exited(30_000)).toBe(0);
  });

  it('a worker that dies is logged and replaced, and the other serves meanwhile', async () => {
    const { port, proc, keyPath } = await start();
    const [victim, survivor] = readyWorkers(proc);
    const body = await tokenBody(port, keyPath);
    const load = startLoad(4, () => request(port, 'POST', '/oauth/v2/token', body), { maxSeconds: 40 });
    await sleep(1500);
    const killedAt = Date.now();
    process.kill(victim!, 'SIGKILL');
    await until(async () => readyWorkers(proc).length === 3, 30_000, 'a replacement worker');
    const replacedAt = Date.now();
    await sleep(1500);
    await load.stop();

    const died = lines(proc).find((l) => l.msg === 'worker died; starting a replacement');
    expect(died).toMatchObject({ pid: victim, signal: 'SIGKILL' });
    const replacement = readyWorkers(proc)[2]!;
    expect([victim, survivor]).not.toContain(replacement);
    // Served throughout: only requests on the killed worker's connections can fail, at most one per load worker.
    const failed = load.records.filter((r) => r.status !== 200);
    expect(failed.length).toBeLessThanOrEqual(4);
    expect(failed.every((r) => r.at <= killedAt + 100)).toBe(true);
    expect(load.records.filter((r) => r.at > killedAt && r.at < replacedAt && r.status === 200).length).toBeGreaterThan(
      0,
    );
    // and the replacement takes its share
    await Promise.all(Array.from({ length: 20 }, () => request(port, 'GET', '/.well-known/openid-configuration')));
    expect(servingPids(proc)).toContain(replacement);
    proc.child.kill('SIGTERM');
    expect(await proc.exited(30_000)).toBe(0);
  });

  it('SIGTERM drains every worker: readiness 503, requests in flight finished, then exit 0', async () => {
    const DRAIN_MS = 2000;
    const { port, proc, keyPath } = await start({ GATEHOUSE_SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    const body = await tokenBody(port, keyPath);
    const load = startLoad(6, () => request(port, 'POST', '/oauth/v2/token', body), { maxSeconds: 30 });
    await sleep(1500);
    const termAt = Date.now();
    proc.child.kill('SIGTERM');
    // both workers drain: every readiness answer is 503 while the port still serves
    await sleep(300);
    const readiness = await Promise.all(Array.from({ length: 10 }, () => request(port, 'GET', '/readyz')));
    expect(readiness).toEqual(Array(10).fill(503));
    expect(await proc.exited(30_000)).toBe(0);
    await load.stop();
    const inFlight = load.records.filter((r) => r.at < termAt);
    expect(inFlight.length).toBeGreaterThan(5);
    expect(inFlight.filter((r) => r.status !== 200)).toEqual([]);
    // during the drain requests are still served
    expect(load.records.filter((r) => r.at > termAt + 300 && r.status === 200).length).toBeGreaterThan(0);
    const workers = readyWorkers(proc);
    const stopped = lines(proc).filter((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM');
    expect(new Set(stopped.map((l) => l.pid))).toEqual(new Set(workers));
  });

  it('the sweep and the key rotation run once per period across two nodes of two workers each', async () => {
    const env = {
      GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: '1000',
      LOG_LEVEL: 'debug',
      // a signing key every 4 s, signing at once, looked for by every worker every 200 ms
      GATEHOUSE_KEY_ROTATION_DAYS: String(4 / 86_400),
      GATEHOUSE_KEY_ACTIVATION_DELAY: '0',
      GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '200',
    };
    const first = await start(env);
    const second = await start(env, first.db);
    const from = Date.now();
    await sleep(8000);
    const to = Date.now();
    // one key per rotation period, not one per worker that found it due
    const db = await openDb(first.db.database);
    try {
      const { rows } = await db.query<{ at: Date }>('SELECT activates_at AS at FROM signing_keys ORDER BY 1');
      const gaps = rows.slice(1).map((r, i) => r.at.getTime() - rows[i]!.at.getTime());
      expect(gaps.length).toBeGreaterThanOrEqual(2);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(3900);
    } finally {
      await db.close();
    }
    const runs = [first.proc, second.proc].flatMap((p) =>
      lines(p).filter((l) => l.msg === 'background job runs' && l.time >= from && l.time < to),
    );
    // four processes tick every second; one claims each period of 0.9 to 1 s: 8 to 9 runs (fewer when the machine
    // is busy and timers are late), never one per tick (32)
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.length).toBeLessThanOrEqual(10);
    expect(new Set(runs.map((r) => r.job))).toEqual(new Set(['oidc-sweep']));
    for (const p of [first.proc, second.proc]) p.child.kill('SIGTERM');
    expect(await Promise.all([first.proc.exited(30_000), second.proc.exited(30_000)])).toEqual([0, 0]);
  });
});
