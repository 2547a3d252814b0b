// Database failover under load: Gatehouse on a Patroni cluster (two PostgreSQL 15 members in synchronous replication,
// HAProxy routing to the primary). The primary's postmaster is SIGKILLed while clients take tokens, introspect them,
// create users over REST and read them over gRPC. No acknowledged write or token may be lost; while no primary is
// reachable every request is answered 503 with Retry-After (gRPC: UNAVAILABLE), never 500 and never a 200 with wrong
// data, and /readyz says 503; Gatehouse serves again by itself within 30 s.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code as GrpcCode } from '@connectrpc/connect';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServiceAccountKeyFile } from '../../src/users/machine-keys.ts';
import { sleep, until } from '../helpers/load.ts';
import { callApi } from '../helpers/management.ts';
import { basic, createApiApp, createMachine, createProject, postForm } from '../helpers/oidc.ts';
import { type PatroniCluster, startPatroniCluster } from '../helpers/patroni.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { calls } from '../helpers/provisioning.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';

const RECOVERY_LIMIT_MS = 30_000;

/** One answer: 200, 503, another status, or what makes it wrong ('wrong-data', 'no-retry-after'). */
interface Answer {
  kind: string;
  outcome: number | string;
  at: number;
  ms: number;
}

describe.runIf(isPostgres)('database failover (Patroni, synchronous replication, HAProxy)', () => {
  let cluster: PatroniCluster | undefined;
  let server: TestServer | undefined;
  let keyDir: string | undefined;
  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
    if (keyDir) rmSync(keyDir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, answers 503 while no primary is reachable, and recovers by itself', async () => {
    cluster = await startPatroniCluster();
    const url = cluster.url('gatehouse');
    const admin = new pg.Client({ connectionString: cluster.url('postgres'), connectionTimeoutMillis: 5000 });
    await admin.connect();
    await admin.query('CREATE DATABASE gatehouse');
    await admin.end();
    keyDir = mkdtempSync(join(tmpdir(), 'gatehouse-failover-'));
    const keyPath = join(keyDir, 'admin.json');
    server = await startTestServer({
      database: {
        env: { DATABASE_URL: url },
        database: { kind: 'postgres', url, poolSize: 10, connectTimeoutMs: 2000, statementTimeoutMs: 5000 },
        drop: async () => {},
      },
      env: {
        GATEHOUSE_ADMIN_KEY_FILE: keyPath,
        DATABASE_CONNECT_TIMEOUT_MS: '2000',
        DATABASE_STATEMENT_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'error',
      },
    });
    const base = server.url;
    const adminToken = await jwtProfileToken(
      server,
      JSON.parse(readFileSync(keyPath, 'utf8')) as ServiceAccountKeyFile,
    );
    const machine = await createMachine(server);
    const projectId = await createProject(server);
    const resourceServer = await createApiApp(server, projectId);
    const scope = `openid urn:zitadel:iam:org:project:id:${projectId}:aud`;

    const answers: Answer[] = [];
    const tokens: string[] = [];
    const users: { userId: string; userName: string }[] = [];
    let n = 0;
    /** A failed HTTP answer as recorded: a 503 must say when to come back. */
    const failure = (res: { status: number; headers: Headers }) =>
      res.status === 503 && !res.headers.get('retry-after') ? 'no-retry-after' : res.status;

    const introspect = async (token: string) => {
      const res = await postForm(
        `${base}/oauth/v2/introspect`,
        { token },
        { authorization: basic(resourceServer.clientId, resourceServer.clientSecret!) },
      );
      return { res, active: res.json.active === true && res.json.client_id === machine.userName };
    };
    const operations: Record<string, () => Promise<number | string>> = {
      token: async () => {
        const res = await postForm(
          `${base}/oauth/v2/token`,
          { grant_type: 'client_credentials', scope },
          { authorization: basic(machine.userName, machine.clientSecret) },
        );
        if (res.status !== 200) return failure(res);
        if (typeof res.json.access_token !== 'string') return 'wrong-data';
        tokens.push(res.json.access_token);
        return 200;
      },
      introspect: async () => {
        // the newest acknowledged token: it must be active, or the answer must be a refusal to answer
        const { res, active } = await introspect(tokens.at(-1)!);
        if (res.status !== 200) return failure(res);
        return active ? 200 : 'wrong-data';
      },
      createUser: async () => {
        const userName = `failover-${process.pid}-${++n}`;
        const res = await fetch(`${base}/management/v1/users/machine`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ userName, name: 'Failover' }),
          signal: AbortSignal.timeout(20_000),
        });
        const body = (await res.json()) as { userId?: string };
        if (!res.ok) return failure(res);
        if (typeof body.userId !== 'string') return 'wrong-data';
        users.push({ userId: body.userId, userName });
        return 200;
      },
      grpcGetUser: async () => {
        // the newest acknowledged user, read back over gRPC: found with its name, or UNAVAILABLE
        const user = users.at(-1) ?? { userId: machine.userId, userName: machine.userName };
        const outcome = await callApi(base, 'grpc', calls.getUser(user.userId), { token: adminToken });
        if (outcome.ok)
          return (outcome.json.user as { userName?: string }).userName === user.userName ? 200 : 'wrong-data';
        return outcome.code === GrpcCode.Unavailable ? 503 : `grpc-${outcome.code}`;
      },
      readyz: async () => {
        const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        await sleep(100);
        return res.status;
      },
    };

    expect(await operations.token!()).toBe(200);
    let stopped = false;
    let passed = false;
    const workers = Object.entries(operations).map(async ([kind, operation]) => {
      const deadline = Date.now() + 120_000;
      while (!stopped && Date.now() < deadline) {
        const at = Date.now();
        const outcome = await operation().catch((error: Error) => `network-error: ${error.message}`);
        answers.push({ kind, outcome, at, ms: Date.now() - at });
      }
    });
    try {
      await until(async () => tokens.length > 0 && users.length > 5, 30_000, 'load running');
      await sleep(2000);

      const old = (await cluster.primary())!;
      const killedAt = Date.now();
      cluster.killPostmaster(old);
      // Recovered: every kind of request has succeeded three times in a row, each started after the last failure.
      const recovered = () => {
        const failures = answers.filter((a) => a.at + a.ms > killedAt && a.outcome !== 200);
        const lastFailure = Math.max(killedAt, ...failures.map((a) => a.at + a.ms));
        return Object.keys(operations).every(
          (kind) => answers.filter((a) => a.kind === kind && a.at > lastFailure && a.outcome === 200).length >= 3,
        );
      };
      await until(async () => failedSince(answers, killedAt) > 0, 10_000, 'the kill makes requests fail');
      await until(async () => recovered(), RECOVERY_LIMIT_MS + 5_000, 'Gatehouse serves again');
      await sleep(1000);
      stopped = true;
      await Promise.all(workers);

      const after = answers.filter((a) => a.at + a.ms > killedAt);
      const failed = after.filter((a) => a.outcome !== 200);
      const firstFailure = Math.min(...failed.map((a) => a.at));
      const lastFailure = Math.max(...failed.map((a) => a.at + a.ms));
      const byOutcome = count(failed.map((a) => `${a.kind} ${a.outcome}`));
      const newPrimary = await cluster.waitHealthy(60_000);

      // Every acknowledged user is on the new primary, and every acknowledged token is still active.
      const check = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      await check.connect();
      const { rows } = await check
        .query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1)', [users.map((u) => u.userId)])
        .finally(() => check.end());
      const found = new Set(rows.map((r) => r.id));
      const lostUsers = users.filter((u) => !found.has(u.userId));
      const lostTokens: string[] = [];
      for (const token of tokens) {
        const { res, active } = await introspect(token);
        if (res.status !== 200 || !active) lostTokens.push(token);
      }

      console.log(
        [
          `failover: ${old.name} killed, ${newPrimary.name} primary`,
          `  requests: ${answers.length} (${after.length} after the kill)`,
          `  window: failed requests from ${firstFailure - killedAt} to ${lastFailure - killedAt} ms after the kill`,
          `  failed requests: ${failed.length} ${JSON.stringify(byOutcome)}`,
          `  lost writes: ${lostUsers.length} of ${users.length} users, ` +
            `${lostTokens.length} of ${tokens.length} tokens`,
        ].join('\n'),
      );
      expect(newPrimary.name).not.toBe(old.name);
      expect(lostUsers).toEqual([]);
      expect(lostTokens).toEqual([]);
      // Only 503 (gRPC UNAVAILABLE) while the primary is away; readiness said so too.
      expect(new Set(answers.map((a) => a.outcome))).toEqual(new Set([200, 503]));
      expect(failed.filter((a) => a.kind === 'readyz').length).toBeGreaterThan(0);
      expect(lastFailure - killedAt).toBeLessThan(RECOVERY_LIMIT_MS);
      passed = true;
    } finally {
      stopped = true;
      await Promise.all(workers);
      if (!passed) console.log(`${server.logs.slice(-20).join('')}\n${cluster.log()}`);
    }
  });
});

function failedSince(answers: Answer[], since: number): number {
  return answers.filter((a) => a.at + a.ms > since && a.outcome !== 200).length;
}

function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
