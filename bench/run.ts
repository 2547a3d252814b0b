// `npm run bench`: Gatehouse against a bare oidc-provider baseline on the same machine, scenario by scenario,
// alternating the two so that machine noise hits both alike. `--smoke` runs every scenario for a moment and fails
// on any error (CI); a full run writes bench/results/<time>-<database>.{json,md}.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Client, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { fromJson } from '@bufbuild/protobuf';
import { AdminService, SetUpOrgRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { runFlowLoad, runHttpLoad, type HttpScenario, type LoadResult } from './load.ts';
import {
  type Credentials,
  type GatehouseTarget,
  type LookupUser,
  lookupUser,
  serviceAssertion,
  startGatehouse,
  USER,
} from './gatehouse.ts';
import {
  authorizationCode,
  BenchBrowser,
  codeRedemption,
  passwordLogin,
  silentReauthentication,
} from './login-flow.ts';
import { cpuBetween, databaseCpu, serverSettings } from './database-time.ts';
import { cpuUseBetween, readCpu } from './machine-cpu.ts';
import { consoleTable, type PageTiming, timeConsole } from './console-pages.ts';
import {
  comparison,
  printedDatabaseMs,
  printedQueries,
  toMarkdown,
  writeComparison,
  writeRun,
  type Run,
  type ScenarioResult,
} from './report.ts';
import { scaleReport, scaleSize, type SweepPair, type SweepWindow, writeScaleReport } from './scale-report.ts';
import { expiredRows } from './scale-seed.ts';
import { type Db, openDb } from '../src/platform/db.ts';
import { sweepExpired } from '../src/oidc/payload-store.ts';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const DURATION = smoke ? 1 : Number(args[args.indexOf('--duration') + 1] || 0) || 10;
const WARMUP = smoke ? 0 : 2;
const CONNECTIONS = smoke ? 4 : 32;
// `--workers 1,2` (issue 24): one Gatehouse per GATEHOUSE_WORKERS count, measured in turn, scenario by scenario,
// `--rounds R` times each, so that the machine's noise hits every count alike. `--workers 2` alone: the usual bench
// against two workers.
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

/** Browsers signed in to Gatehouse, one per connection, for the silent re-authentication and to mint codes. */
async function signedInBrowsers(url: string, app: Credentials, count: number): Promise<BenchBrowser[]> {
  const browsers = Array.from({ length: count }, () => new BenchBrowser());
  for (let i = 0; i < count; i += 4)
    await Promise.all(browsers.slice(i, i + 4).map((b) => passwordLogin(url, app, USER, 'openid', b)));
  return browsers;
}

/** Takes a browser from the pool for one flow and gives it back. */
function withBrowser(pool: BenchBrowser[], flow: (browser: BenchBrowser) => Promise<void>): () => Promise<void> {
  return async () => {
    const browser = pool.pop();
    if (!browser) throw new Error('browser pool is empty');
    try {
      await flow(browser);
    } finally {
      pool.push(browser);
    }
  };
}

/** Authorization codes with their PKCE verifiers, minted by silent authorizations before the exchange scenario:
 *  `count`, or as many as `seconds` allow. */
async function mintCodes(url: string, app: Credentials, browsers: BenchBrowser[], count: number, seconds: number) {
  const codes: { code: string; verifier: string }[] = [];
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    browsers.map(async (browser) => {
      while (codes.length < count && Date.now() < deadline)
        codes.push(await authorizationCode(url, app, browser, undefined, { scope: 'openid', prompt: 'none' }));
    }),
  );
  return codes;
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

// Numbers the orgs SetUpOrg creates, across every prepare() of the run: a restarted Gatehouse keeps its database.
let org = 0;

/** What the scenarios of one Gatehouse need, made before the first of them. */
interface Prepared {
  gh: GatehouseTarget;
  token: string;
  assertion: string;
  /** Refresh tokens of signed-in sessions, one pool for every round of the run (each refresh puts its rotated
   *  token back), logged in when the refresh scenario first needs them. */
  refreshPool(): Promise<string[]>;
  admin: Client<typeof AdminService>;
  grpcHeaders: Record<string, string>;
  setUpOrgBody(): string;
  someUser(): LookupUser;
}

async function prepare(gh: GatehouseTarget, step: (what: string) => void): Promise<Prepared> {
  const projectScope = `openid profile urn:zitadel:iam:org:project:id:${gh.projectId}:aud`;
  let refreshPool: Promise<string[]> | undefined;
  const logIn = async () => {
    step('logging in users for the refresh scenario');
    const pool: string[] = [];
    for (let i = 0; i < CONNECTIONS + 4; i += 4) {
      const logins = await Promise.all([0, 1, 2, 3].map(() => passwordLogin(gh.url, gh.web, USER)));
      pool.push(...logins.map((l) => l.refreshToken!));
    }
    return pool;
  };
  return {
    gh,
    token: await clientCredentialsToken(gh.url, gh.clientCredentials, projectScope),
    assertion: await serviceAssertion(gh.url, gh.serviceKey),
    refreshPool: () => (refreshPool ??= logIn()),
    admin: createClient(AdminService, createGrpcTransport({ baseUrl: gh.url })),
    grpcHeaders: { authorization: `Bearer ${gh.adminToken}` },
    setUpOrgBody: () =>
      JSON.stringify({
        org: { name: `Bench Org ${process.pid} ${org++}` },
        human: {
          userName: `bench-${process.pid}-${org}`,
          profile: { firstName: 'B', lastName: 'O' },
          email: { email: 'b@example.test' },
          password: 'Bench-Password-1',
        },
      }),
    someUser: () => lookupUser(gh),
  };
}

interface PreparedBaseline extends Baseline {
  token: string;
}

// Scenarios that use tokens issued before the run come first: the baseline's in-memory adapter is an LRU of
// 1,000 entries, and every token-issuing scenario evicts older entries.
function scenarioList(t: Prepared, bl: PreparedBaseline | undefined): Scenario[] {
  const { gh } = t;
  return [
    {
      name: 'discovery',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/.well-known/openid-configuration' }),
      baseline: bl && (async () => ({ path: '/.well-known/openid-configuration' })),
    },
    {
      name: 'jwks',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/oauth/v2/keys' }),
      baseline: bl && (async () => ({ path: '/oauth/v2/keys' })),
    },
    {
      name: 'userinfo',
      target: { rps: 5000, p99: 25, queries: 2 },
      gatehouse: async () => userinfoRequest(t.token),
      baseline: bl && (async () => userinfoRequest(bl.userAccessToken)),
    },
    {
      name: 'introspection',
      target: { rps: 5000, p99: 25, queries: 1, ratio: 0.6 },
      gatehouse: async () => introspectionRequest(gh.introspector, t.token),
      baseline: bl && (async () => introspectionRequest(bl.introspector, bl.token)),
    },
    {
      name: 'refresh',
      target: { rps: 1500, p99: 40, queries: 3, ratio: 1 },
      gatehouse: async () => refreshChain(gh.url, await t.refreshPool(), gh.web),
      // the baseline's one pool, rotated in place: a run of several rounds (`--rounds`) continues each chain, where
      // a copy of the tokens minted at start would present rotated, dead tokens again in round 2
      baseline: bl && (async () => refreshChain(bl.url, bl.refreshTokens, bl.web)),
    },
    {
      name: 'silent re-authentication (authorize prompt=none → code → token)',
      target: { rps: 500, queries: 6 },
      gatehouse: async () =>
        withBrowser(await signedInBrowsers(gh.url, gh.web, CONNECTIONS), async (browser) => {
          await silentReauthentication(gh.url, gh.web, browser);
        }),
    },
    {
      name: 'authorization code exchange (codes minted before)',
      target: { rps: 1500, queries: 3 },
      gatehouse: async () => {
        step('minting authorization codes');
        // a run of up to 2,500 exchanges a second, or as many codes as a minute mints; no warm-up (the silent
        // re-authentications before ran the same path)
        const codes = await mintCodes(
          gh.url,
          gh.web,
          await signedInBrowsers(gh.url, gh.web, CONNECTIONS),
          smoke ? 50 : 2500 * DURATION,
          60,
        );
        return {
          method: 'POST',
          path: '/oauth/v2/token',
          expectBody: '"access_token"',
          requests: () => codes.length,
          setupRequest: (request) => {
            const next = codes.pop();
            if (!next) throw new Error('no authorization codes left');
            const init = codeRedemption(gh.web, next.code, next.verifier);
            return { ...request, headers: init.headers as Record<string, string>, body: init.body as string };
          },
        };
      },
    },
    {
      name: 'client_credentials (opaque)',
      target: { rps: 3000, p99: 40, queries: 2, ratio: 0.5 },
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentials)),
      baseline: bl && (async () => tokenRequest('grant_type=client_credentials', basic(bl.clientCredentials))),
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
            assertion: t.assertion,
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
        setupRequest: (request) => ({ ...request, body: t.setUpOrgBody() }),
      }),
    },
    {
      name: 'SetUpOrg (gRPC)',
      gatehouse: async () => async () => {
        await t.admin.setUpOrg(fromJson(SetUpOrgRequestSchema, JSON.parse(t.setUpOrgBody())), {
          headers: t.grpcHeaders,
        });
      },
    },
    ...issue21Lookups(t),
    {
      name: 'password login (authorize → pages → code → token)',
      target: { rps: 75, p99: 300, queries: 10 },
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
      gatehouse: async () => introspectionRequest(gh.introspector, t.token),
    },
  ];
}

/**
 * Issue 21's lookups at 1,000,000 users (target p99 < 20 ms): at 4 connections, an API client's concurrency, which
 * carries the target; and at the bench's 32, for their rate. 32 closed-loop connections on two cores are a queue:
 * each request waits for the 31 ahead of it, so the p99 there is Little's law (32 in flight / the rate), not a
 * lookup's latency; the README's Performance section works it out.
 */
function issue21Lookups(t: Prepared): Scenario[] {
  const { gh } = t;
  const lookups: Scenario[] = [
    {
      name: 'GetUserByID (REST)',
      gatehouse: async () => ({
        path: '/management/v1/users/_',
        headers: { authorization: `Bearer ${gh.adminToken}` },
        expectBody: '"userName"',
        setupRequest: (request) => {
          const user = t.someUser();
          return {
            ...request,
            path: `/management/v1/users/${user.id}`,
            headers: { ...request.headers, ...user.headers },
          };
        },
      }),
    },
    {
      // Issue 21: a search box's request, the user's name without its last character (the user is among the rows)
      name: 'ListUsers by user name prefix (REST)',
      gatehouse: async () => ({
        method: 'POST',
        path: '/management/v1/users/_search',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gh.adminToken}` },
        expectBody: '"userName"',
        setupRequest: (request) => {
          const user = t.someUser();
          return {
            ...request,
            headers: { ...request.headers, ...user.headers },
            body: JSON.stringify({
              query: { limit: 20 },
              queries: [
                { userNameQuery: { userName: user.userName.slice(0, -1), method: 'TEXT_QUERY_METHOD_STARTS_WITH' } },
              ],
            }),
          };
        },
      }),
    },
  ];
  const latency = { p99: 20 };
  return [
    ...lookups,
    ...lookups.map((s) => ({ ...s, name: `${s.name}, 4 connections`, connections: 4, target: latency })),
  ];
}

/** One scenario on one Gatehouse (and on the baseline, alternating, when given): warm-up, then the measured run;
 *  `alongside` runs through the measured window only (not the warm-up), given its length in seconds. */
async function runScenario(
  s: Scenario,
  gh: GatehouseTarget,
  bl?: Baseline,
  alongside?: (seconds: number) => Promise<unknown>,
): Promise<ScenarioResult> {
  const connections = smoke ? Math.min(CONNECTIONS, s.connections ?? CONNECTIONS) : (s.connections ?? CONNECTIONS);
  const ghScenario = await s.gatehouse();
  const blScenario = bl && s.baseline && (await s.baseline());
  resetPeakRss(gh.pid);
  // a scenario with a fixed supply of requests (minted codes) has none to spare for a warm-up
  if (WARMUP && !(typeof ghScenario === 'object' && ghScenario.requests)) {
    await measure(gh.url, ghScenario, connections, WARMUP);
    if (blScenario) await measure(bl.url, blScenario, connections, WARMUP);
  }
  const q0 = await queries(gh.url);
  const d0 = gh.databaseUrl ? await databaseCpu(gh.databaseUrl) : undefined;
  const cpu0 = readCpu(processes(gh.pid));
  const side = alongside?.(DURATION);
  const g = await measure(gh.url, ghScenario, connections, DURATION);
  const cpu = cpuUseBetween(cpu0, readCpu(processes(gh.pid)));
  await side;
  const d1 = gh.databaseUrl ? await databaseCpu(gh.databaseUrl) : undefined;
  const q1 = await queries(gh.url);
  const b = blScenario ? await measure(bl.url, blScenario, connections, DURATION) : undefined;
  const peak = peakRssMb(gh.pid);
  const result: ScenarioResult = {
    scenario: s.name,
    connections,
    gatehouse: {
      ...g,
      queriesPerRequest: g.requests ? (q1 - q0) / g.requests : 0,
      databaseMsPerRequest: d0 && d1 && g.requests ? cpuBetween(d0, d1) / g.requests : undefined,
      peakRssMb: peak,
      cpu,
    },
    baseline: b,
    target: s.target,
  };
  process.stdout.write(
    `${s.name}: ${Math.round(g.rps)} req/s p50 ${g.p50} ms p99 ${g.p99} ms errors ${g.errors + g.unexpected} ` +
      `queries/req ${printedQueries(result)} db ms/req ${printedDatabaseMs(result) ?? '-'} peak RSS ${peak} MB ` +
      `CPU % idle ${cpu.idle} event loops ${cpu.eventLoops} thread pool ${cpu.threadPool}` +
      `${b ? ` | baseline ${Math.round(b.rps)} req/s` : ''}\n`,
  );
  return result;
}

/** `--smoke` (CI): any failed request, of Gatehouse or of the baseline, or a scenario that served none, fails the
 *  run; a full run reports them in its table instead. */
function failOnErrors(results: ScenarioResult[]): void {
  const failed = results.filter(
    (r) =>
      r.gatehouse.errors + r.gatehouse.unexpected > 0 ||
      r.gatehouse.requests === 0 ||
      (r.baseline && r.baseline.errors + r.baseline.unexpected > 0),
  );
  if (failed.length) throw new Error(`smoke run had errors in: ${failed.map((r) => r.scenario).join(', ')}`);
}

const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
const selected = (scenarios: Scenario[]) => scenarios.filter((x) => !only || only.some((o) => x.name.startsWith(o)));
// The console's pages (issue 22, bench/console-pages.ts) are one set, `--only console` alone; `--page-requests N`
// measured requests per page (300; 3 in a smoke run), one at a time, after a tenth as many to warm up.
const CONSOLE_SET = 'console pages';
const consoleSelected = !only || only.some((o) => CONSOLE_SET.startsWith(o));
const PAGE_REQUESTS = smoke ? 3 : Number(args[args.indexOf('--page-requests') + 1] || 0) || 300;
const PAGE_WARM_UP = Math.max(1, Math.round(PAGE_REQUESTS / 10));
// `--pages Overview,Users`: only the console pages whose names start so (e.g. to profile one with --cpu-prof)
const PAGES = args.includes('--pages') ? args[args.indexOf('--pages') + 1]!.split(',') : undefined;
const pageSelected = PAGES && ((name: string) => PAGES.some((p) => name.startsWith(p)));
/** `--smoke` (CI): a console page that failed fails the run. */
function failOnPageErrors(timings: PageTiming[][]): void {
  const failed = timings.flat().filter((t) => t.errors > 0 || t.requests === 0);
  if (failed.length) throw new Error(`console pages had errors: ${failed.map((t) => t.page).join(', ')}`);
}
const randomPort = () => 18000 + Math.floor(Math.random() * 2000);
const step = (what: string) => process.stderr.write(`bench: ${what}\n`);

async function main(): Promise<void> {
  if (args.includes('--scale')) return benchAtScale();
  if (WORKERS.length > 1) return benchWorkers();
  step('starting gatehouse and its fixtures');
  const cpuProfileDir = args.includes('--cpu-prof')
    ? fileURLToPath(new URL('./results/profiles/', import.meta.url))
    : undefined;
  const gh: GatehouseTarget = await startGatehouse(randomPort(), { cpuProfileDir, workers: WORKERS[0] });
  step('starting the baseline');
  const bl = await startBaseline();
  const results: ScenarioResult[] = [];
  try {
    const prepared = await prepare(gh, step);
    const scenarios = scenarioList(prepared, {
      ...bl,
      token: await clientCredentialsToken(bl.url, bl.clientCredentials),
    });
    let runPeakRssMb = peakRssMb(gh.pid); // start-up and fixtures
    for (const s of selected(scenarios)) {
      const result = await runScenario(s, gh, bl);
      runPeakRssMb = Math.max(runPeakRssMb, result.gatehouse.peakRssMb ?? 0);
      results.push(result);
    }
    const run: Run = {
      startedAt: new Date().toISOString(),
      database: gh.database,
      machine: { cpus: availableParallelism(), node: process.version },
      databaseSettings: gh.databaseUrl ? await serverSettings(gh.databaseUrl) : undefined,
      workers: WORKERS[0],
      durationSeconds: DURATION,
      peakRssMb: runPeakRssMb,
      results,
    };
    if (results.length) process.stdout.write(`\n${toMarkdown(run)}`);
    if (consoleSelected) {
      const pages = await timeConsole([{ gh }], PAGE_REQUESTS, PAGE_WARM_UP, pageSelected);
      process.stdout.write(`\n${consoleTable(pages, [gh.database])}\n`);
      if (smoke) failOnPageErrors(pages);
    }
    if (smoke) failOnErrors(results);
    else if (results.length) process.stdout.write(`\nwritten to ${writeRun(run)}.{json,md}\n`);
  } finally {
    bl.stop();
    await gh.stop();
    if (cpuProfileDir)
      process.stdout.write(
        `\nCPU profile of the Gatehouse process in ${cpuProfileDir} (summary: node bench/profile-summary.ts <file>)\n`,
      );
  }
}

/** `--workers 1,2`: each scenario against every worker count in turn, ROUNDS times, and the baseline once a round;
 *  a count's figure is its round of median req/s. Writes each count's run and their comparison. */
async function benchWorkers(): Promise<void> {
  const targets: GatehouseTarget[] = [];
  const bl = await startBaseline();
  try {
    for (const workers of WORKERS) targets.push(await startGatehouse(randomPort(), { workers }));
    const blPrepared = { ...bl, token: await clientCredentialsToken(bl.url, bl.clientCredentials) };
    const lists: Scenario[][] = [];
    for (const gh of targets) lists.push(selected(scenarioList(await prepare(gh, step), blPrepared)));
    const results: ScenarioResult[][] = targets.map(() => []);
    const everyRound: ScenarioResult[] = [];
    for (const [i, s] of lists[0]!.entries()) {
      const rounds: ScenarioResult[][] = targets.map(() => []);
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [t, gh] of targets.entries()) {
          // when each measurement ran, to match with CPU samples taken beside the bench
          step(`${new Date().toISOString()} ${s.name}, ${WORKERS[t]} worker(s), round ${round}`);
          const result = await runScenario(lists[t]![i]!, gh, t === 0 ? bl : undefined);
          rounds[t]!.push(result);
          everyRound.push(result);
        }
      }
      for (const [t, measured] of rounds.entries()) {
        const byRate = [...measured].sort((a, b) => a.gatehouse.rps - b.gatehouse.rps);
        results[t]!.push({
          ...byRate[Math.floor(byRate.length / 2)]!,
          baseline: rounds[0]!.find((r) => r.baseline)?.baseline,
          rounds: measured.map((r) => r.gatehouse.rps),
          baselineRounds: s.baseline ? rounds[0]!.map((r) => r.baseline!.rps) : undefined,
        });
      }
    }
    const startedAt = new Date().toISOString();
    const settings = targets[0]!.databaseUrl ? await serverSettings(targets[0]!.databaseUrl) : undefined;
    const runs: Run[] = targets.map((gh, t) => ({
      startedAt,
      database: gh.database,
      machine: { cpus: availableParallelism(), node: process.version },
      databaseSettings: settings,
      workers: WORKERS[t],
      durationSeconds: DURATION,
      peakRssMb: Math.max(...results[t]!.map((r) => r.gatehouse.peakRssMb ?? 0)),
      results: results[t]!,
    }));
    process.stdout.write(`\n${comparison(runs)}`);
    if (smoke) failOnErrors(everyRound);
    else {
      for (const run of runs) process.stdout.write(`\nwritten to ${writeRun(run)}.{json,md}\n`);
      process.stdout.write(`comparison written to ${writeComparison(runs)}\n`);
    }
  } finally {
    bl.stop();
    for (const gh of targets) await gh.stop();
  }
}

/**
 * `--scale` (issue 18 "Scale"): every scenario on a Gatehouse whose database is seeded like a large deployment
 * (LARGE_DEPLOYMENT), alternating with one on an empty database, so that machine noise hits both alike; then each
 * again on the seeded one, still and at once while the sweep of expired tokens runs through the measured window
 * (`--rounds N` times, alternating).
 * `--scale-size orgs,users,apps,tokens` seeds another size (a quicker look); with `--smoke` too, any error fails the
 * run and no report is written.
 */
async function benchAtScale(): Promise<void> {
  const size = scaleSize(args);
  // the sweep runs only where the bench runs it (sweepWindow)
  const noSweep = { GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: String(24 * 3600_000) };
  step(`seeding ${JSON.stringify(size)}`);
  const reuse = args.includes('--reuse-seed');
  const scaled = await startGatehouse(randomPort(), { seed: { size, progress: step, reuse }, env: noSweep });
  const empty = await startGatehouse(randomPort(), { env: noSweep });
  // named apart from Gatehouse's pool, so the database CPU per request leaves the sweep out (databaseCpu)
  const sweeperUrl = new URL(scaled.databaseUrl!);
  sweeperUrl.searchParams.set('application_name', 'gatehouse-bench-sweep');
  const sweeper = await openDb({
    kind: 'postgres',
    url: sweeperUrl.toString(),
    poolSize: 1,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 60_000,
  });
  try {
    const onEmpty = selected(scenarioList(await prepare(empty, step), undefined));
    const onScaled = selected(scenarioList(await prepare(scaled, step), undefined));
    const pairs: { empty: ScenarioResult; scaled: ScenarioResult }[] = [];
    for (const [i, s] of onScaled.entries())
      pairs.push({ empty: await runScenario(onEmpty[i]!, empty), scaled: await runScenario(s, scaled) });
    // the console's pages, one request at a time, on the still database
    const loadBefore = loadavg()[0]!;
    const pages = consoleSelected
      ? await timeConsole([{ gh: empty }, { gh: scaled, size }], PAGE_REQUESTS, PAGE_WARM_UP, pageSelected)
      : [];
    const pageLoad = [loadBefore, loadavg()[0]!];
    const sweepPairs: SweepPair[] = [];
    if (onScaled.length) step('each scenario on the seeded database again, still and then while the sweep runs');
    for (const s of selected(scenarioList(await prepare(scaled, step), undefined))) {
      const pair: SweepPair = { still: [], sweeping: [], sweep: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        pair.still.push(await runScenario(s, scaled));
        pair.sweeping.push(
          await runScenario(s, scaled, undefined, async (seconds) => {
            pair.sweep.push(await sweepWindow(sweeper, seconds));
          }),
        );
      }
      sweepPairs.push(pair);
    }
    const report = scaleReport({
      seed: scaled.seed!,
      pairs,
      sweepPairs,
      sweepRounds: ROUNDS,
      expired: expiredRows(size),
      durationSeconds: DURATION,
      databaseSettings: await serverSettings(scaled.databaseUrl!),
      consolePages: pages,
      pageRequests: PAGE_REQUESTS,
      pageLoad,
    });
    process.stdout.write(`\n${report}`);
    if (smoke) failOnPageErrors(pages);
    if (smoke)
      failOnErrors([
        ...pairs.flatMap((p) => [p.empty, p.scaled]),
        ...sweepPairs.flatMap((p) => [...p.still, ...p.sweeping]),
      ]);
    else process.stdout.write(`\nwritten to ${writeScaleReport(report)}\n`);
  } finally {
    await sweeper.close();
    await empty.stop();
    await scaled.stop();
  }
}

/**
 * The background sweep as a deployment runs it (sweepExpired: the same batches and pauses) for `seconds`, from the
 * bench on a connection of its own: the server's schedule runs it at most half of each interval, so a measured window
 * would hold an unknown share of it (issue 18 asks for p99 "while it runs").
 */
async function sweepWindow(db: Db, seconds: number): Promise<SweepWindow> {
  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  const rows = await sweepExpired(db, { until });
  return { rows, seconds: (performance.now() - started) / 1000, ranOut: Date.now() < until };
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.message}\n`);
    process.exit(1);
  },
);
