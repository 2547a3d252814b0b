// CPU time per operation, by process: Gatehouse (all its threads, argon2id's included), its PostgreSQL backends and
// the load generator. On a machine shared with other work the rates of `npm run bench` move with the load, the CPU
// an operation costs much less: two cores divided by the sum is what this machine could do on its own.
//   DATABASE_URL=postgres://... node bench/cpu-cost.ts [seconds] [--only=<name>,...] [--cpu-prof=<dir>]
//     [--scale-size=orgs,users,apps,tokens]
// --only runs the scenarios whose names contain one of the texts; --cpu-prof writes a CPU profile of Gatehouse
// (summarise it with bench/profile-summary.ts); --scale-size runs on a copy of the seeded template database that
// `npm run bench -- --scale --reuse-seed` keeps (seeded here the first time), the lookups reading random users.
import { type Credentials, lookupUser, startGatehouse, USER } from './gatehouse.ts';
import {
  BenchBrowser,
  codeRedemption,
  authorizationCode,
  passwordLogin,
  silentReauthentication,
} from './login-flow.ts';
import { runFlowLoad } from './load.ts';
import { cpuBetween, databaseCpu } from './database-time.ts';
import { processCpuMs } from './machine-cpu.ts';
import { parseScaleSize } from './scale-report.ts';

const args = process.argv.slice(2);
const SECONDS = Number(args.find((a) => !a.startsWith('--')) ?? 10);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = option('only')?.split(',');
const selected = (name: string) => !ONLY || ONLY.some((text) => name.includes(text));
const SCALE = option('scale-size');
const CONNECTIONS = 32;
async function main() {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must name a PostgreSQL server');
  const size = SCALE ? parseScaleSize(SCALE) : undefined;
  const gh = await startGatehouse(18000 + Math.floor(Math.random() * 2000), {
    cpuProfileDir: option('cpu-prof'),
    seed: size && { size, progress: (what) => process.stderr.write(`${what}\n`), reuse: true },
  });
  const databaseUrl = gh.databaseUrl!;
  try {
    const browsers: BenchBrowser[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const b = new BenchBrowser();
      await passwordLogin(gh.url, gh.web, USER, 'openid', b);
      browsers.push(b);
    }
    const refreshPool: string[] = [];
    for (let i = 0; i < CONNECTIONS; i++)
      refreshPool.push((await passwordLogin(gh.url, gh.web, USER, 'openid offline_access')).refreshToken!);
    const pool = [...browsers];
    const scenarios: [string, () => Promise<() => Promise<void>>][] = [
      ['refresh', async () => refresh(gh.url, gh.web, refreshPool)],
      [
        'silent re-authentication',
        async () => async () => {
          const b = pool.pop()!;
          try {
            await silentReauthentication(gh.url, gh.web, b);
          } finally {
            pool.push(b);
          }
        },
      ],
      ['code exchange', () => codeExchange(gh.url, gh.web, browsers, SECONDS)],
      ['password login', async () => () => passwordLogin(gh.url, gh.web, USER, 'openid').then(() => {})],
      // the user lookups over REST, each with the caller's token and permission check
      [
        'GetUserByID',
        async () => () => {
          const user = lookupUser(gh);
          return management(gh.url, gh.adminToken, user.headers, 'GET', `/management/v1/users/${user.id}`);
        },
      ],
      [
        'ListUsers by user name prefix',
        async () => () => {
          const user = lookupUser(gh);
          return management(gh.url, gh.adminToken, user.headers, 'POST', '/management/v1/users/_search', {
            query: { limit: 20 },
            queries: [
              { userNameQuery: { userName: user.userName.slice(0, -1), method: 'TEXT_QUERY_METHOD_STARTS_WITH' } },
            ],
          });
        },
      ],
    ];
    for (const [name, prepare] of scenarios) {
      if (!selected(name)) continue;
      const flow = await prepare();
      if (name !== 'code exchange') await runFlowLoad(flow, CONNECTIONS, 2); // warm-up (codes are one per op)
      const before = { gh: processCpuMs(gh.pid), db: (await databaseCpu(databaseUrl))!, load: process.cpuUsage() };
      const result = await runFlowLoad(flow, CONNECTIONS, SECONDS);
      const ghMs = processCpuMs(gh.pid) - before.gh;
      const dbMs = cpuBetween(before.db, (await databaseCpu(databaseUrl))!);
      const load = process.cpuUsage(before.load);
      const loadMs = (load.user + load.system) / 1000;
      const per = (ms: number) => (ms / result.requests).toFixed(2);
      const total = (ghMs + dbMs + loadMs) / result.requests;
      process.stdout.write(
        `${name}: ${result.requests} ops, ${result.rps.toFixed(0)}/s here; CPU ms per op: gatehouse ${per(ghMs)}, ` +
          `postgres ${per(dbMs)}, load generator ${per(loadMs)}, total ${total.toFixed(2)} ` +
          `(two cores alone: ${Math.round(2000 / total)}/s; without the load generator ` +
          `${Math.round(2000 / (total - loadMs / result.requests))}/s)` +
          `${result.errors ? ` errors ${result.errors}` : ''}\n`,
      );
    }
  } finally {
    await gh.stop();
  }
}

function refresh(url: string, app: Credentials, pool: string[]) {
  return async () => {
    const token = pool.pop()!;
    const res = await fetch(`${url}/oauth/v2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
    });
    const json = (await res.json()) as { refresh_token?: string };
    if (!json.refresh_token) throw new Error(`refresh: ${res.status}`);
    pool.push(json.refresh_token);
  };
}

async function management(
  url: string,
  token: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: object,
): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...headers,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"userName"')) throw new Error(`${path}: ${res.status}`);
}

/** Codes minted for at most a minute; the flow then waits out the run once they are used up (uncounted). */
async function codeExchange(url: string, app: Credentials, browsers: BenchBrowser[], seconds: number) {
  const codes: { code: string; verifier: string }[] = [];
  const deadline = Date.now() + 60_000;
  await Promise.all(
    browsers.map(async (b) => {
      while (Date.now() < deadline && codes.length < 20_000)
        codes.push(await authorizationCode(url, app, b, undefined, { scope: 'openid', prompt: 'none' }));
    }),
  );
  return async () => {
    const next = codes.pop();
    if (!next) {
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      throw new Error('no codes left');
    }
    const res = await fetch(`${url}/oauth/v2/token`, codeRedemption(app, next.code, next.verifier));
    if (res.status !== 200) throw new Error(`code exchange: ${res.status}`);
    await res.arrayBuffer();
  };
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`cpu-cost failed: ${error.stack}\n`);
    process.exit(1);
  },
);
