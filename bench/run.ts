// `npm run bench`: Gatehouse against a bare oidc-provider baseline on the same machine, scenario by scenario,
// alternating the two so that machine noise hits both alike. `--smoke` runs every scenario for a moment and fails
// on any error (CI); a full run writes bench/results/<time>-<database>.{json,md}.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { fromJson } from '@bufbuild/protobuf';
import { AdminService, SetUpOrgRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { runFlowLoad, runHttpLoad, type HttpScenario, type LoadResult } from './load.ts';
import { serviceAssertion, startGatehouse, USER, type GatehouseTarget } from './gatehouse.ts';
import { passwordLogin } from './login-flow.ts';
import {
  comparison,
  printedQueries,
  toMarkdown,
  writeComparison,
  writeRun,
  type Run,
  type ScenarioResult,
} from './report.ts';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const DURATION = smoke ? 1 : Number(args[args.indexOf('--duration') + 1] || 0) || 10;
const WARMUP = smoke ? 0 : 2;
const CONNECTIONS = smoke ? 4 : 32;
// `--workers N`: Gatehouse with GATEHOUSE_WORKERS=N (issue 24); the figures then cover every process. `--workers 1,2`
// starts one Gatehouse per count and measures them in turn, scenario by scenario, `--rounds R` times each, so that
// the machine's noise hits every count alike.
const WORKERS = (args.includes('--workers') ? args[args.indexOf('--workers') + 1]! : '1').split(',').map(Number);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 1;
const basic = (c: { clientId: string; clientSecret: string }) =>
  `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

// The requests of the single-request scenarios, for Gatehouse and the baseline alike; each names what every answer
// must contain, so a fast wrong answer counts as unexpected.
const tokenRequest = (body: string, authorization?: string): HttpScenario => ({
  method: 'POST',
  path: '/oauth/v2/token',
  headers: { 'content-type': FORM, ...(authorization ? { authorization } : {}) },
  body,
  expectBody: '"access_token"',
});
const introspectionRequest = (caller: { clientId: string; clientSecret: string }, token: string): HttpScenario => ({
  method: 'POST',
  path: '/oauth/v2/introspect',
  headers: { 'content-type': FORM, authorization: basic(caller) },
  body: `token=${token}`,
  expectBody: '"active":true',
});
const userinfoRequest = (token: string): HttpScenario => ({
  path: '/oidc/v1/userinfo',
  headers: { authorization: `Bearer ${token}` },
  expectBody: '"sub":',
});
const CLIENT_CREDENTIALS = 'grant_type=client_credentials&scope=openid';

interface Baseline {
  url: string;
  clientCredentials: { clientId: string; clientSecret: string };
  introspector: { clientId: string; clientSecret: string };
  web: { clientId: string; clientSecret: string };
  userAccessToken: string;
  refreshTokens: string[];
  stop(): void;
}

async function startBaseline(): Promise<Baseline> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./baseline.ts', import.meta.url)), '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    // oidc-provider prints its own notices on stdout too; the baseline's line is the JSON one.
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.startsWith('{')) resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { ...JSON.parse(line), stop: () => child.kill('SIGTERM') };
}

async function queries(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gatehouse_db_queries_total (\d+)/m.exec(text)?.[1] ?? 0);
}

/** The Gatehouse process and, with workers, the worker processes it forked (proc(5) task/<tid>/children). */
function processes(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(' ').map(Number) : [])];
}

/** The sum of the peaks of every Gatehouse process: what the deployment needs at most. */
function peakRssMb(pid: number): number {
  const kb = processes(pid)
    .map((p) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0))
    .reduce((a, b) => a + b, 0);
  return Math.round(kb / 1024);
}

/** Starts a new peak (VmHWM) for each process, so each scenario reports its own (proc(5), clear_refs value 5). */
function resetPeakRss(pid: number): void {
  for (const p of processes(pid)) writeFileSync(`/proc/${p}/clear_refs`, '5');
}

async function clientCredentialsToken(
  url: string,
  creds: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  const res = await fetch(`${url}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': FORM, authorization: basic(creds) },
    body,
  });
  const json = (await res.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`client_credentials at ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.access_token;
}

/** Refresh with rotation: each request takes a refresh token from the pool and puts the new one back, so no token
 *  is ever used twice (a reuse would revoke its grant). */
function refreshChain(
  url: string,
  pool: string[],
  client: { clientId: string; clientSecret: string },
): () => Promise<void> {
  return async () => {
    const refreshToken = pool.pop();
    if (!refreshToken) throw new Error('refresh token pool is empty');
    const res = await fetch(`${url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization: basic(client) },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    const json = (await res.json()) as { refresh_token?: string; error?: string };
    if (!json.refresh_token) throw new Error(`refresh: ${res.status} ${json.error}`);
    pool.push(json.refresh_token);
  };
}

interface Scenario {
  name: string;
  connections?: number;
  target?: ScenarioResult['target'];
  gatehouse: () => Promise<HttpScenario | (() => Promise<void>)>;
  baseline?: () => Promise<HttpScenario | (() => Promise<void>)>;
}

async function measure(
  url: string,
  scenario: HttpScenario | (() => Promise<void>),
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  return typeof scenario === 'function'
    ? runFlowLoad(scenario, connections, seconds)
    : runHttpLoad(url, scenario, connections, seconds);
}

async function main(): Promise<void> {
  const step = (what: string) => process.stderr.write(`bench: ${what}\n`);
  step('starting gatehouse and its fixtures');
  const cpuProfileDir = args.includes('--cpu-prof')
    ? fileURLToPath(new URL('./results/profiles/', import.meta.url))
    : undefined;
  const targets: GatehouseTarget[] = [];
  const bl = await startBaseline();
  try {
    for (const workers of WORKERS) {
      targets.push(await startGatehouse(18000 + Math.floor(Math.random() * 2000), { cpuProfileDir, workers }));
    }
    const blToken = await clientCredentialsToken(bl.url, bl.clientCredentials);
    const prepared = [];
    for (const gh of targets) prepared.push(await scenariosFor(gh, bl, blToken, step));
    const runs = await measureAll(targets, prepared, bl);
    process.stdout.write(runs.map((run) => `\n${toMarkdown(run)}`).join(''));
    if (runs.length > 1) process.stdout.write(`\n${comparison(runs)}`);
    if (smoke) {
      const failed = runs.flatMap((run) =>
        run.results.filter(
          (r) =>
            r.gatehouse.errors + r.gatehouse.unexpected > 0 ||
            r.gatehouse.requests === 0 ||
            (r.baseline && r.baseline.errors + r.baseline.unexpected > 0),
        ),
      );
      if (failed.length) throw new Error(`smoke run had errors in: ${failed.map((r) => r.scenario).join(', ')}`);
    } else {
      for (const run of runs) process.stdout.write(`\nwritten to ${writeRun(run)}.{json,md}\n`);
      if (runs.length > 1) process.stdout.write(`comparison written to ${writeComparison(runs)}\n`);
    }
  } finally {
    bl.stop();
    for (const gh of targets) await gh.stop();
    if (cpuProfileDir)
      process.stdout.write(
        `\nCPU profile of the Gatehouse process in ${cpuProfileDir} (summary: node bench/profile-summary.ts <file>)\n`,
      );
  }
}

/** The scenarios against one Gatehouse (and the baseline), with the fixtures they need. */
async function scenariosFor(
  gh: GatehouseTarget,
  bl: Baseline,
  blToken: string,
  step: (what: string) => void,
): Promise<Scenario[]> {
  const projectScope = `openid profile urn:zitadel:iam:org:project:id:${gh.projectId}:aud`;
  const ghToken = await clientCredentialsToken(gh.url, gh.clientCredentials, projectScope);
  const assertion = await serviceAssertion(gh.url, gh.serviceKey);
  step('logging in users for the refresh scenario');
  const refreshPool: string[] = [];
  for (let i = 0; i < CONNECTIONS + 4; i += 4) {
    const logins = await Promise.all([0, 1, 2, 3].map(() => passwordLogin(gh.url, gh.web, USER)));
    refreshPool.push(...logins.map((l) => l.refreshToken!));
  }
  let org = 0;
  const setUpOrgBody = () =>
    JSON.stringify({
      org: { name: `Bench Org ${process.pid} ${org++}` },
      human: {
        userName: `bench-${process.pid}-${org}`,
        profile: { firstName: 'B', lastName: 'O' },
        email: { email: 'b@example.test' },
        password: 'Bench-Password-1',
      },
    });
  const admin = createClient(AdminService, createGrpcTransport({ baseUrl: gh.url }));
  const grpcHeaders = { authorization: `Bearer ${gh.adminToken}` };

  // Scenarios that use tokens issued before the run come first: the baseline's in-memory adapter is an LRU of
  // 1,000 entries, and every token-issuing scenario evicts older entries.
  const scenarios: Scenario[] = [
    {
      name: 'discovery',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/.well-known/openid-configuration' }),
      baseline: async () => ({ path: '/.well-known/openid-configuration' }),
    },
    {
      name: 'jwks',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/oauth/v2/keys' }),
      baseline: async () => ({ path: '/oauth/v2/keys' }),
    },
    {
      name: 'userinfo',
      target: { rps: 5000, p99: 25, queries: 2 },
      gatehouse: async () => userinfoRequest(ghToken),
      baseline: async () => userinfoRequest(bl.userAccessToken),
    },
    {
      name: 'introspection',
      target: { rps: 5000, p99: 25, queries: 1, ratio: 0.6 },
      gatehouse: async () => introspectionRequest(gh.introspector, ghToken),
      baseline: async () => introspectionRequest(bl.introspector, blToken),
    },
    {
      name: 'refresh',
      gatehouse: async () => refreshChain(gh.url, refreshPool, gh.web),
      baseline: async () => refreshChain(bl.url, [...bl.refreshTokens], bl.web),
    },
    {
      name: 'client_credentials (opaque)',
      target: { rps: 3000, p99: 40, queries: 2, ratio: 0.5 },
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentials)),
      baseline: async () => tokenRequest('grant_type=client_credentials', basic(bl.clientCredentials)),
    },
    {
      name: 'client_credentials (JWT)',
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentialsJwt)),
    },
    {
      name: 'JWT-profile grant',
      target: { rps: 1200, p99: 60, queries: 3 },
      gatehouse: async () =>
        tokenRequest(
          new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion,
            scope: 'openid',
          }).toString(),
        ),
    },
    {
      name: 'SetUpOrg (REST)',
      target: { rps: 100 },
      gatehouse: async () => ({
        method: 'POST',
        path: '/admin/v1/orgs/_setup',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gh.adminToken}` },
        setupRequest: (request) => ({ ...request, body: setUpOrgBody() }),
      }),
    },
    {
      name: 'SetUpOrg (gRPC)',
      gatehouse: async () => async () => {
        await admin.setUpOrg(fromJson(SetUpOrgRequestSchema, JSON.parse(setUpOrgBody())), { headers: grpcHeaders });
      },
    },
    {
      name: 'password login (authorize → pages → code → token)',
      target: { rps: 100, p99: 300 },
      gatehouse: async () => async () => {
        await passwordLogin(gh.url, gh.web, USER, 'openid');
      },
    },
    {
      name: 'client_credentials, 1 connection',
      connections: 1,
      target: { p99: 5 },
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentials)),
    },
    {
      name: 'introspection, 1 connection',
      connections: 1,
      target: { p99: 5 },
      gatehouse: async () => introspectionRequest(gh.introspector, ghToken),
    },
  ];
  return scenarios;
}

/** Each scenario against every target in turn, ROUNDS times (warm-up in the first), and the baseline once a round;
 *  a target's figure is its round of median req/s. */
async function measureAll(targets: GatehouseTarget[], prepared: Scenario[][], bl: Baseline): Promise<Run[]> {
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
  const runPeakRssMb = targets.map((gh) => peakRssMb(gh.pid)); // start-up and fixtures
  const results: ScenarioResult[][] = targets.map(() => []);
  for (const [index, s] of prepared[0]!.entries()) {
    if (only && !only.some((o) => s.name.startsWith(o))) continue;
    const connections = smoke ? Math.min(CONNECTIONS, s.connections ?? CONNECTIONS) : (s.connections ?? CONNECTIONS);
    const rounds: ScenarioResult[][] = targets.map(() => []);
    const blScenario = s.baseline && (await s.baseline());
    for (let round = 0; round < ROUNDS; round++) {
      for (const [t, gh] of targets.entries()) {
        const ghScenario = await prepared[t]![index]!.gatehouse();
        resetPeakRss(gh.pid);
        if (WARMUP && round === 0) await measure(gh.url, ghScenario, connections, WARMUP);
        const q0 = await queries(gh.url);
        // when each measurement ran, to match with CPU samples taken beside the bench
        process.stderr.write(
          `bench: ${new Date().toISOString()} ${s.name}, ${WORKERS[t]} worker(s), round ${round + 1}\n`,
        );
        const g = await measure(gh.url, ghScenario, connections, DURATION);
        const q1 = await queries(gh.url);
        const peak = peakRssMb(gh.pid);
        runPeakRssMb[t] = Math.max(runPeakRssMb[t]!, peak);
        rounds[t]!.push({
          scenario: s.name,
          connections,
          gatehouse: { ...g, queriesPerRequest: g.requests ? (q1 - q0) / g.requests : 0, peakRssMb: peak },
          target: s.target,
        });
      }
      if (blScenario) {
        if (WARMUP && round === 0) await measure(bl.url, blScenario, connections, WARMUP);
        const b = await measure(bl.url, blScenario, connections, DURATION);
        for (const r of rounds) r.at(-1)!.baseline = b;
      }
    }
    for (const [t, gh] of targets.entries()) {
      const byRate = [...rounds[t]!].sort((a, b) => a.gatehouse.rps - b.gatehouse.rps);
      const result = {
        ...byRate[Math.floor(byRate.length / 2)]!,
        rounds: rounds[t]!.map((r) => r.gatehouse.rps),
        baselineRounds: blScenario ? rounds[t]!.map((r) => r.baseline!.rps) : undefined,
      };
      results[t]!.push(result);
      const g = result.gatehouse;
      const b = result.baseline;
      process.stdout.write(
        `${s.name} (${WORKERS[t]} worker(s), ${gh.url}): ${Math.round(g.rps)} req/s p50 ${g.p50} ms p99 ${g.p99} ms ` +
          `errors ${g.errors + g.unexpected} queries/req ${printedQueries(result)} peak RSS ${g.peakRssMb} MB` +
          `${ROUNDS > 1 ? ` rounds ${result.rounds.map(Math.round).join('/')}` : ''}` +
          `${b ? ` | baseline ${Math.round(b.rps)} req/s` : ''}\n`,
      );
    }
  }
  const startedAt = new Date().toISOString();
  return targets.map((gh, t) => ({
    startedAt,
    database: gh.database,
    machine: { cpus: availableParallelism(), node: process.version },
    workers: WORKERS[t],
    durationSeconds: DURATION,
    peakRssMb: runPeakRssMb[t]!,
    results: results[t]!,
  }));
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.message}\n`);
    process.exit(1);
  },
);
