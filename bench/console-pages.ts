// The console's pages at the server (target: each renders under 50 ms p99 server-side on the bench's
// 1,000,000-user database). The bench's admin (IAM_OWNER) signs in to /ui/console through the real login pages,
// then asks for each page in turn, one request at a time, so that queueing behind other requests does not count.
// "Server-side" is the page's `Server-Timing: app;dur=<ms>` (src/console/page.ts: from the request's arrival to
// its response, on the server's clock); the round trip the bench sees is reported beside it. Statements per page
// are the pool's counter (/metrics) over the page's requests, which run alone.
import { withOrg } from '../src/views/console/layout.ts';
import { type GatehouseTarget, USER } from './gatehouse.ts';
import { BenchBrowser, throughLogin } from './login-flow.ts';
import { randomSeededUser, type ScaleSize, seededId } from './scale-seed.ts';

/** The bootstrap admin of every bench Gatehouse (GATEHOUSE_ADMIN_PASSWORD in gatehouse.ts), an IAM_OWNER. */
export const ADMIN = { loginName: 'admin', password: 'Bench-Admin-1' };
const CONSOLE = '/ui/console';
/** The users list's page size (src/console/user-list.ts). */
const USERS_PAGE = 20;

export interface ConsolePageSpec {
  name: string;
  /** The path of the next request: on a seeded database a random seeded org (and its project, app, user) each
   *  time, so the pages read a million users' rows, not one cached page. */
  path: () => string;
}

export interface PageTiming {
  page: string;
  requests: number;
  /** Server-Timing of the page, ms. */
  serverP50: number;
  serverP99: number;
  serverMax: number;
  /** The bench's round trip on loopback, ms. */
  clientP50: number;
  clientP99: number;
  statements: number;
  errors: number;
}

/** A browser signed in to the console as `user`, through the console's sign-in (the login pages, the console's
 *  callback) and back on the overview. */
export async function signInToConsole(base: string, user = ADMIN): Promise<BenchBrowser> {
  const browser = new BenchBrowser();
  const back = await throughLogin(base, browser, `${base}${CONSOLE}`, user, (url) => {
    const { pathname } = new URL(url);
    return pathname === CONSOLE;
  });
  const res = await browser.request(back);
  if (res.status !== 200) throw new Error(`console sign-in ended at ${res.status} ${back}`);
  await res.text();
  return browser;
}

const random = (n: number) => 1 + Math.floor(Math.random() * n);

/** The main pages of the console: on a seeded database (`size`) with random seeded objects, else with the bench's
 *  own fixtures in the admin's org. */
export function consolePages(gh: GatehouseTarget, size?: ScaleSize): ConsolePageSpec[] {
  // one seeded user (its org, e-mail), or the bench user, per request
  const someone = () => {
    if (!size) return { id: gh.userId, org: undefined, userName: USER.loginName, email: 'bench@example.test' };
    const { id, userName, orgId } = randomSeededUser(size);
    return { id, org: orgId, userName, email: userName };
  };
  // one seeded project with its app (app p is project p's), or the bench's
  const someApp = () => {
    if (!size) return { project: gh.projectId, app: gh.webAppId, org: undefined };
    const p = random(size.apps);
    return {
      project: seededId('project', p),
      app: seededId('app', p),
      org: seededId('org', 1 + ((p - 1) % size.orgs)),
    };
  };
  const at = (path: string, org: string | undefined) => withOrg(`${CONSOLE}${path}`, org);
  const someOrg = () => (size ? seededId('org', random(size.orgs)) : undefined);
  // the last page of an org's users (the seed spreads them evenly)
  const usersPerOrg = size ? Math.ceil(size.users / size.orgs) : 5;
  const lastPage = Math.max(0, Math.floor((usersPerOrg - 1) / USERS_PAGE) * USERS_PAGE);
  const search = (q: string, org: string | undefined) => at(`/users?${new URLSearchParams({ q })}`, org);
  return [
    { name: 'Overview', path: () => at('', someOrg()) },
    { name: 'Organizations', path: () => at('/orgs', undefined) },
    {
      name: 'Organization',
      path: () => {
        const org = someOrg() ?? gh.orgId;
        return `${CONSOLE}/orgs/${org}?org=${org}`;
      },
    },
    { name: 'Projects', path: () => at('/projects', someOrg()) },
    {
      name: 'Project (with its apps)',
      path: () => {
        const { project, org } = someApp();
        return at(`/projects/${project}/apps`, org);
      },
    },
    {
      name: 'App',
      path: () => {
        const { project, app, org } = someApp();
        return at(`/projects/${project}/apps/${app}`, org);
      },
    },
    { name: 'Users', path: () => at('/users', someOrg()) },
    {
      name: 'User',
      path: () => {
        const u = someone();
        return at(`/users/${u.id}`, u.org);
      },
    },
    {
      name: 'Users, user name prefix',
      path: () => {
        const u = someone();
        return search(u.userName.slice(0, -1), u.org);
      },
    },
    {
      name: 'Users, e-mail prefix',
      path: () => {
        const u = someone();
        return search(`${u.email.split('@')[0]}@ex`, u.org);
      },
    },
    { name: `Users, offset ${lastPage}`, path: () => at(`/users?offset=${lastPage}`, someOrg()) },
    { name: 'Audit', path: () => at('/audit', someOrg()) },
    {
      name: 'Audit, one object',
      path: () => {
        const u = someone();
        return at(`/audit?object=${u.id}`, u.org);
      },
    },
  ];
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : 0;
const round = (n: number) => Math.round(n * 100) / 100;

async function statementCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gatehouse_db_queries_total (\d+)/m.exec(text)?.[1] ?? 0);
}

/** `warmUp` requests, then `requests` measured ones, of one page, one after the other. A page that is not a 200
 *  with its Server-Timing (the sign-in page, "no access", an error) counts as an error. */
export async function timePage(
  url: string,
  browser: BenchBrowser,
  page: ConsolePageSpec,
  requests: number,
  warmUp: number,
): Promise<PageTiming> {
  const server: number[] = [];
  const client: number[] = [];
  let errors = 0;
  const once = async (measured: boolean) => {
    const path = page.path();
    const t0 = performance.now();
    const res = await browser.request(`${url}${path}`);
    const body = await res.text();
    const t1 = performance.now();
    const timing = /app;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
    if (res.status !== 200 || !timing || body.includes('id="no-access"')) {
      if (errors++ === 0) process.stderr.write(`console page ${path}: ${res.status} ${body.slice(0, 200)}\n`);
      return;
    }
    if (!measured) return;
    server.push(Number(timing[1]));
    client.push(t1 - t0);
  };
  for (let i = 0; i < warmUp; i++) await once(false);
  const q0 = await statementCount(url);
  for (let i = 0; i < requests; i++) await once(true);
  const q1 = await statementCount(url);
  server.sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  return {
    page: page.name,
    requests: server.length,
    serverP50: round(quantile(server, 0.5)),
    serverP99: round(quantile(server, 0.99)),
    serverMax: round(server.at(-1) ?? 0),
    clientP50: round(quantile(client, 0.5)),
    clientP99: round(quantile(client, 0.99)),
    statements: round((q1 - q0) / requests),
    errors,
  };
}

/** The p99 server-side render time every page must stay under. */
export const PAGE_P99_TARGET_MS = 50;

export function printTiming(where: string, r: PageTiming): void {
  process.stdout.write(
    `console ${r.page} (${where}): server p50 ${r.serverP50} ms p99 ${r.serverP99} ms max ${r.serverMax} ms, ` +
      `round trip p50 ${r.clientP50} ms p99 ${r.clientP99} ms, ${r.statements} statements, ${r.errors} errors\n`,
  );
}

/** The Markdown table of the console pages: per page a timing for each target (`labels`, e.g. the empty and
 *  the seeded database), judged on the last. */
export function consoleTable(rows: PageTiming[][], labels: string[]): string {
  const lines = [
    `| page | ${labels.map((l) => `${l}: server p50 / p99 / max ms | statements`).join(' | ')} | ` +
      'round trip p50 / p99 ms | verdict |',
    `|---|${labels.map(() => '---|---|').join('')}---|---|`,
  ];
  for (const row of rows) {
    const last = row.at(-1)!;
    const errors = row.reduce((n, t) => n + t.errors, 0);
    const verdict = errors
      ? `ERRORS: ${errors}`
      : last.serverP99 <= PAGE_P99_TARGET_MS
        ? 'met'
        : `MISSED: p99 > ${PAGE_P99_TARGET_MS}`;
    const cells = row.map((t) => `${t.serverP50} / ${t.serverP99} / ${t.serverMax} | ${t.statements}`);
    lines.push(`| ${last.page} | ${cells.join(' | ')} | ${last.clientP50} / ${last.clientP99} | ${verdict} |`);
  }
  return lines.join('\n');
}

export interface ConsoleTarget {
  gh: GatehouseTarget;
  /** The seeded size, if the database was seeded. */
  size?: ScaleSize;
}

/** Every page on every target, signed in once each; a page is measured on each target in turn, so that the
 *  machine's noise hits them alike. Returns, per page, one timing per target. */
export async function timeConsole(
  targets: ConsoleTarget[],
  requests: number,
  warmUp: number,
  only?: (name: string) => boolean,
): Promise<PageTiming[][]> {
  const signedIn = await Promise.all(
    targets.map(async (t) => ({ ...t, browser: await signInToConsole(t.gh.url), pages: consolePages(t.gh, t.size) })),
  );
  const results: PageTiming[][] = [];
  for (const [i, page] of signedIn[0]!.pages.entries()) {
    if (only && !only(page.name)) continue;
    const row: PageTiming[] = [];
    for (const t of signedIn) {
      const timing = await timePage(t.gh.url, t.browser, t.pages[i]!, requests, warmUp);
      printTiming(t.size ? 'seeded' : 'empty', timing);
      row.push(timing);
    }
    results.push(row);
  }
  return results;
}
