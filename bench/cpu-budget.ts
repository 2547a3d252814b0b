// The CPU budget of the hot paths: for each, the CPU one request costs Gatehouse as a multiple of what it costs the
// bare oidc-provider (bench/baseline.ts) in the same run, measured in alternation; for the password login, which the
// bare library has no equivalent of, a multiple of one argon2id verification at Gatehouse's own parameters. Rates on
// a shared machine move up to 3x between sessions; CPU per request much less, and a ratio of two CPU costs measured
// side by side less still, so a multiple that rises says that Gatehouse's own work per request rose
// (`npm run bench:budget`, bench/budget.ts, holds it to a committed reference).
//
// What counts: the server process with all its threads (the event loop, the thread pool's signatures and hashes) and
// the PostgreSQL backends of its pool. The database side is part of Gatehouse's cost: the baseline keeps its rows in
// memory, in its own process, so its CPU already includes its storage; and a regression that moves work into SQL (a
// statement more per request, a lost index, a plan that reads more rows) costs CPU there, not in Node. The load
// generator (this process) counts on neither side.
import { availableParallelism, cpus, loadavg } from 'node:os';
import pg from 'pg';
import { type HttpScenario, type LoadResult, runFlowLoad, runHttpLoad } from './load.ts';
import { CALLBACK, type GatehouseTarget, USER } from './gatehouse.ts';
import { type Baseline, startBaseline } from './baseline-target.ts';
import { cpuBetween, databaseCpu } from './database-time.ts';
import { preciseCpuMs } from './machine-cpu.ts';
import { processes } from './memory.ts';
import { prepare, scenarioList } from './scenarios.ts';
import { clientCredentialsToken, codeExchangeRequest, mintCodes, signedInBrowsers } from './requests.ts';
import { hashPassword, verifyPassword } from '../src/users/passwords.ts';

/** Requests per round and side (in CHUNKS windows), from the spread and the time measured on the loaded 2-vCPU
 *  machine (docs/performance.md, "The CPU budget"): a round of each side holds 0.5-2 s of CPU, the whole check a few
 *  minutes, and an exchange window's codes fit the baseline's in-memory store (an LRU of 1,000 entries). */
export const HOT_PATHS = {
  // first the paths on tokens the baseline minted at its start, before client_credentials' tokens evict them
  userinfo: { requests: 4000, scenario: 'userinfo' },
  introspection: { requests: 4000, scenario: 'introspection' },
  refresh: { requests: 1200, scenario: 'refresh' },
  client_credentials: { requests: 4000, scenario: 'client_credentials (opaque)' },
  'code exchange': { requests: 480, scenario: undefined },
  'silent re-authentication': { requests: 480, scenario: 'silent re-authentication' },
  'password login': { requests: 40, scenario: 'password login' },
} as const;
export type HotPath = keyof typeof HOT_PATHS;
/** argon2id verifications per round: the password login's divisor. */
const VERIFICATIONS = 12;
const CONNECTIONS = 32;
/** Windows of each side per round (round). */
const CHUNKS = 4;
/** A window's bound: a machine too busy to serve its requests within it fails the run rather than hang CI. */
const WINDOW_SECONDS = 120;

/** One side of a path: what a window needs first (outside the measured CPU, e.g. codes minted), then its load. */
interface Side {
  ready?: (requests: number) => Promise<void>;
  load: (requests: number) => Promise<LoadResult>;
  /** The CPU ms its processes have spent so far; the database's backends count too when it names one. */
  cpuMs: () => number;
  database?: pg.Client;
}

export interface PathCost {
  path: HotPath;
  /** Gatehouse's CPU ms per request: the server's and its PostgreSQL backends' (median round). */
  serverMs: number;
  databaseMs: number;
  /** The baseline's CPU ms per request, or one argon2id verification's for the password login (median round). */
  divisorMs: number;
  divisor: 'baseline' | 'argon2id';
  /** Gatehouse's CPU per request over the divisor, the median of the rounds' multiples, and each round's. */
  multiple: number;
  rounds: number[];
}

export interface BudgetMachine {
  cpus: number;
  cpuModel: string;
  node: string;
  /** The 1-minute load average before and after the measurement. */
  load: [number, number];
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Spent {
  requests: number;
  serverMs: number;
  databaseMs: number;
}

/** The CPU a window of `requests` on `side` costs, in ms: its processes' and its database backends'. */
async function window(side: Side, requests: number): Promise<Spent> {
  await side.ready?.(requests);
  const server0 = side.cpuMs();
  const db0 = side.database ? await databaseCpu(side.database, preciseCpuMs) : undefined;
  const result = await side.load(requests);
  const serverMs = side.cpuMs() - server0;
  const db1 = side.database ? await databaseCpu(side.database, preciseCpuMs) : undefined;
  if (result.errors || result.unexpected || !result.requests)
    throw new Error(`${result.errors + result.unexpected} failed requests of ${result.requests}`);
  return { requests: result.requests, serverMs, databaseMs: db0 && db1 ? cpuBetween(db0, db1) : 0 };
}

/** One round: CHUNKS windows of each side in ABBA order, their CPU summed per side. The load of a shared machine
 *  swings within seconds; windows of a fraction of a second, interleaved, put both sides under the same swings,
 *  where one long window each put them under different ones (measured: one round's multiple halved). */
async function round(a: [Side, number], b: [Side, number]): Promise<[Spent, Spent]> {
  const sums: [Spent, Spent] = [
    { requests: 0, serverMs: 0, databaseMs: 0 },
    { requests: 0, serverMs: 0, databaseMs: 0 },
  ];
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    const order = chunk % 2 ? [1, 0] : [0, 1];
    for (const i of order) {
      const [side, requests] = i ? b : a;
      const spent = await window(side, Math.ceil(requests / CHUNKS));
      sums[i]!.requests += spent.requests;
      sums[i]!.serverMs += spent.serverMs;
      sums[i]!.databaseMs += spent.databaseMs;
    }
  }
  return sums;
}

function httpOrFlow(url: string, scenario: HttpScenario | (() => Promise<void>)) {
  return (requests: number) => {
    if (typeof scenario === 'function') return runFlowLoad(scenario, CONNECTIONS, WINDOW_SECONDS, requests);
    const count = scenario.requests?.() ?? requests;
    // autocannon wants no more connections than requests
    return runHttpLoad(url, { ...scenario, requests: () => count }, Math.min(CONNECTIONS, count), 0);
  };
}

/** The code exchange: `requests` codes minted by silent authorizations before each window, then redeemed in it. */
async function codeExchange(url: string, app: { clientId: string; clientSecret: string }) {
  const browsers = await signedInBrowsers(url, app, CONNECTIONS);
  const codes: { code: string; verifier: string }[] = [];
  return {
    ready: async (requests: number) => {
      codes.push(...(await mintCodes(url, app, browsers, requests, WINDOW_SECONDS)));
      codes.splice(0, codes.length - requests); // the loops mint a few more than asked
    },
    load: httpOrFlow(url, codeExchangeRequest(app, codes)),
  };
}

/** One argon2id verification, as Gatehouse verifies a password: a hash made by Gatehouse's own code at its
 *  parameters, verified by it, in this process (no load runs meanwhile; the pool's thread counts). */
async function argon2Side(): Promise<Side> {
  const hash = await hashPassword(USER.password);
  return {
    cpuMs: () => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1000;
    },
    load: async (verifications) => {
      for (let i = 0; i < verifications; i++)
        if (!(await verifyPassword(USER.password, hash))) throw new Error('argon2id verification failed');
      return { requests: verifications, rps: 0, p50: 0, p99: 0, errors: 0, unexpected: 0 };
    },
  };
}

/**
 * Measures every hot path (or those of `only`) on `gh`: a warm-up round at a quarter of the requests, then `rounds`
 * rounds of interleaved Gatehouse and divisor windows; a path's multiple is the median of its rounds'.
 * All rounds of a path run together: the baseline's LRU store would lose the tokens of the first paths to the
 * tokens the later paths issue. Starts and stops its own baseline.
 */
export async function measureCpuBudget(
  gh: GatehouseTarget,
  options: { rounds: number; only?: string[]; progress: (what: string) => void },
): Promise<{ paths: PathCost[]; machine: BudgetMachine }> {
  const load0 = loadavg()[0]!;
  const bl: Baseline = await startBaseline(CALLBACK);
  // one connection for every window's reading of the backends' CPU (not one of Gatehouse's pool, so not counted)
  const database = gh.databaseUrl ? new pg.Client({ connectionString: gh.databaseUrl }) : undefined;
  await database?.connect();
  try {
    const t = await prepare(gh);
    const scenarios = scenarioList(t, {
      ...bl,
      token: await clientCredentialsToken(bl.url, bl.clientCredentials),
    });
    const ghCpuMs = () => processes(gh.pid).reduce((sum, pid) => sum + preciseCpuMs(pid), 0);
    const blCpuMs = () => preciseCpuMs(bl.pid);
    const paths: PathCost[] = [];
    for (const [path, { requests, scenario }] of Object.entries(HOT_PATHS) as [
      HotPath,
      (typeof HOT_PATHS)[HotPath],
    ][]) {
      if (options.only && !options.only.some((o) => path.startsWith(o))) continue;
      options.progress(`CPU budget: ${path}`);
      const s = scenario && scenarios.find((x) => x.name.startsWith(scenario))!;
      const gatehouse: Side = {
        cpuMs: ghCpuMs,
        database,
        ...(s ? { load: httpOrFlow(gh.url, await s.gatehouse()) } : await codeExchange(gh.url, gh.web)),
      };
      const login = path === 'password login';
      let divisor: Side;
      if (login) divisor = await argon2Side();
      else if (s?.baseline) divisor = { cpuMs: blCpuMs, load: httpOrFlow(bl.url, await s.baseline()) };
      else divisor = { cpuMs: blCpuMs, ...(await codeExchange(bl.url, bl.web)) };
      const divisorCount = login ? VERIFICATIONS : requests;
      await round([gatehouse, requests / 4], [divisor, divisorCount / 4]); // warm-up
      const measured: { gh: Spent; divisorMs: number }[] = [];
      for (let r = 0; r < options.rounds; r++) {
        const [g, d] = await round([gatehouse, requests], [divisor, divisorCount]);
        measured.push({
          gh: { requests: g.requests, serverMs: g.serverMs / g.requests, databaseMs: g.databaseMs / g.requests },
          divisorMs: d.serverMs / d.requests,
        });
      }
      const multiples = measured.map((m) => (m.gh.serverMs + m.gh.databaseMs) / m.divisorMs);
      paths.push({
        path,
        serverMs: median(measured.map((m) => m.gh.serverMs)),
        databaseMs: median(measured.map((m) => m.gh.databaseMs)),
        divisorMs: median(measured.map((m) => m.divisorMs)),
        divisor: login ? 'argon2id' : 'baseline',
        multiple: median(multiples),
        rounds: multiples,
      });
    }
    const machine: BudgetMachine = {
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      node: process.version,
      load: [load0, loadavg()[0]!],
    };
    return { paths, machine };
  } finally {
    await database?.end();
    bl.stop();
  }
}
