// The README, followed literally on a fresh clone: its ```sh blocks are read from README.md (no copy of them lives
// here) and run in order, each `# {…}` output it shows is held against the real output, and every command must exit 0
// with nothing on stderr. The clone is the tracked files of this checkout, uncommitted changes included; its
// node_modules comes from the README's own `npm install`, served from the npm cache that `npm ci` filled
// (npm_config_prefer_offline: no network when the cache holds the lock file's packages).
//
// Like a reader, the test keeps `npm install && npm start` running in a first terminal and types the rest into a
// second one (one bash, so variables carry from block to block). Where it departs from the page, and why:
// - PORT is a free port, not 8080, so that the test can run beside others; the page's `http://localhost:8080` is
//   read as `http://localhost:<PORT>` in the commands, and nowhere else is anything substituted. (The issuer follows
//   PORT by default, so the server needs no other setting.)
// - `npm test` is not run: it is the command that runs this very test.
// - `CODE=…` is the one line replaced: the browser step before it ("open it in a browser and sign in as alice") is
//   done by Chromium, which reads the code from its redirect to the app (nothing listens there); the line is run as
//   `CODE=<that code>`.
// - The database is migrated before the first start, from the run's template as every test file's is (PGlite's
//   files copied into the clone's ./data; with DATABASE_URL set, CI's second run, a PostgreSQL database made from the
//   template and named to both terminals with the master key PostgreSQL requires). The README's first start would
//   apply the migrations itself: the template is made by that same code in the same run, and on a loaded two-core
//   machine migrating PGlite at start took a minute. The first start still creates the instance and the admin user.
// - The doctor, which the page names in its prose for when something does not work, is run while the server runs.
import { rmSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READY } from '../../src/platform/ready.ts';
import { launchBrowser, signIn } from '../helpers/browser.ts';
import { copyCheckout } from '../helpers/checkout-copy.ts';
import { healthy, statuses, type DoctorCheck } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { shellSections, type ShownCommand } from '../helpers/markdown-commands.ts';
import { freePort, TEST_MASTER_KEY } from '../helpers/server.ts';
import { openShell, runInBackground, type BackgroundCommand, type Shell } from '../helpers/shell.ts';
import { differences, parseShown } from '../helpers/shown-output.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PAGE_ADDRESS = 'http://localhost:8080';
const CODE_PLACEHOLDER = /^CODE=…/;
const STARTS_SERVER = /npm start\s*(#.*)?$/;

/** Where a failure points: the README line and the command's first line. */
const where = (command: ShownCommand) => `README.md:${command.line}: ${command.text.split('\n')[0]}`;

/** Where the README's app sends the browser back to, from its `REDIRECT_URI=…` assignment. */
function readmeRedirectUri(): string {
  const match = /\bREDIRECT_URI=(\S+)/.exec(README);
  if (!match) throw new Error('README.md: no `REDIRECT_URI=<uri>` assignment');
  return match[1]!;
}

/** The sign-in the README asks for: the user its `user import` creates, with the password it pipes in. */
function readmeUser(): { loginName: string; password: string } {
  const match = /echo '([^']+)' \| npm run -s cli -- user import --username (\S+)/.exec(README);
  if (!match) throw new Error('README.md: no `echo <password> | … user import --username <name>` command');
  return { password: match[1]!, loginName: match[2]! };
}

async function answers200(url: string): Promise<boolean> {
  return fetch(url).then(
    (r) => r.status === 200,
    () => false,
  );
}

describe('README.md, followed literally on a fresh clone', () => {
  let port: number;
  let clone: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let shell: Shell;
  let server: BackgroundCommand | undefined;
  let browser: Browser | undefined;
  /** The stdout of the command run last, where the browser step finds the URL the page printed. */
  let lastOutput = '';
  /** Every refresh token the commands printed: each must be new (they rotate). */
  const refreshTokens: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    clone = copyCheckout(ROOT);
    // Embedded: the README's ./data; the PostgreSQL database is named by the environment.
    database = await createTestDatabase({ dir: join(clone, 'data') });
    const postgres = database.database.kind === 'postgres';
    env = {
      // The npm scripts put the clone's own node_modules/.bin first; this checkout's must not stand in for it.
      PATH: (process.env.PATH ?? '')
        .split(delimiter)
        .filter((p) => !p.includes('node_modules'))
        .join(delimiter),
      HOME: process.env.HOME ?? homedir(),
      PORT: String(port),
      ...(postgres ? { ...database.env, GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY } : {}),
    };
    shell = openShell(clone, env);
  });

  afterAll(async () => {
    shell?.close();
    await browser?.close();
    await server?.interrupt();
    await database?.drop();
    if (clone) rmSync(clone, { recursive: true, force: true });
  });

  /** The first terminal: `npm install && npm start`, until GET /readyz answers 200 (bounded). */
  async function startServer(command: ShownCommand): Promise<void> {
    server = runInBackground(command.text, clone, { ...env, npm_config_prefer_offline: 'true' });
    const readyz = `http://localhost:${port}/readyz`;
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline && server.exitCode() === undefined) {
      if (await answers200(readyz)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `${where(command)}: ${readyz} did not answer 200 (exit code ${server.exitCode()}):\n${server.output()}`,
    );
  }

  /** The browser step: opens the URL the last command printed, signs in, and returns the code of the redirect. */
  async function signInForCode(command: ShownCommand): Promise<string> {
    const url = lastOutput
      .split('\n')
      .find((l) => l.startsWith(`http://localhost:${port}/`) && l.includes('/authorize'));
    if (!url) throw new Error(`${where(command)}: the command before it printed no authorization URL:\n${lastOutput}`);
    browser ??= await launchBrowser();
    const page = await browser.newPage();
    let redirect: string | undefined;
    // Nothing listens at the redirect URI: the request is answered here, as the address bar would show it.
    const redirectUri = readmeRedirectUri();
    const atRedirect = (u: URL) => u.href.startsWith(`${redirectUri}?`);
    await page.route(atRedirect, (route) => {
      redirect = route.request().url();
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'the app' });
    });
    await page.goto(url);
    const { loginName, password } = readmeUser();
    await signIn(page, loginName, password);
    await page.waitForURL(atRedirect, { timeout: 30_000 }).catch(() => {
      throw new Error(`${where(command)}: signed in as ${loginName}, the browser stayed at ${page.url()}`);
    });
    await page.close();
    const params = new URL(redirect!).searchParams;
    // The page shows where the browser lands: `…/callback?code=…&state=xyz&iss=…`.
    expect(params.get('state'), redirect).toBe(new URL(url).searchParams.get('state'));
    expect(params.get('iss'), redirect).toBe(`http://localhost:${port}`);
    const code = params.get('code');
    if (!code) throw new Error(`${where(command)}: the redirect carries no code: ${redirect}`);
    return code;
  }

  async function follow(command: ShownCommand): Promise<void> {
    let text = command.text.replaceAll(PAGE_ADDRESS, `http://localhost:${port}`);
    if (CODE_PLACEHOLDER.test(text)) text = `CODE=${await signInForCode(command)}`;
    const result = await shell.run(text).catch((e: Error) => {
      throw new Error(`${where(command)}: ${e.message}`);
    });
    const context = `${where(command)}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect(result.status, `exit code of ${context}`).toBe(0);
    expect(result.stderr, `stderr of ${context}`).toBe('');
    lastOutput = result.stdout;
    if (command.shownOutput) {
      let output: unknown;
      expect(() => (output = JSON.parse(result.stdout)), `JSON output of ${context}`).not.toThrow();
      expect(differences(parseShown(command.shownOutput), output), `output shown after ${context}`).toEqual([]);
      const refreshToken = (output as { refresh_token?: unknown }).refresh_token;
      if (typeof refreshToken === 'string') refreshTokens.push(refreshToken);
    }
  }

  /** The first terminal's JSON log records (npm's own lines left out). */
  const serverLog = () =>
    server!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  const sections = shellSections(README);

  it('reads commands and shown outputs as a reader does', () => {
    const page =
      '## A\n```sh\nX=1   # a comment\ncurl -s a \\\n  -d b\n# {"a":"…","b":{…},"c":1,…}\n```\n```json\n{}\n```\n';
    expect(shellSections(page)).toEqual([
      {
        title: 'A',
        commands: [
          { text: 'X=1   # a comment', line: 3 },
          { text: 'curl -s a \\\n  -d b', line: 4, shownOutput: '{"a":"…","b":{…},"c":1,…}' },
        ],
      },
    ]);
    const shown = parseShown('{"a":"…","b":{…},"c":1,…}');
    expect(differences(shown, { a: 'x', b: { y: 1 }, c: 1, d: 2 })).toEqual([]);
    expect(differences(shown, { b: {}, c: 2 })).toEqual(['$.a: missing', '$.c: expected 1, got 2']);
    expect(differences(parseShown('{"a":"…"}'), { a: 1, b: 2 })).toEqual(['$.b: not shown']);
  });

  it('finds in the README what it stands in for: the start, one code to paste, outputs to compare', () => {
    const commands = sections.flatMap((s) => s.commands);
    expect(commands.filter((c) => STARTS_SERVER.test(c.text))).toHaveLength(1);
    expect(commands.filter((c) => CODE_PLACEHOLDER.test(c.text))).toHaveLength(1);
    expect(commands.filter((c) => c.shownOutput).length).toBeGreaterThanOrEqual(4);
  });

  for (const section of sections) {
    it(`${section.title}: every command exits 0 and prints what the page shows`, async () => {
      for (const command of section.commands) {
        if (command.text.startsWith('npm test')) continue;
        if (STARTS_SERVER.test(command.text)) await startServer(command);
        else await follow(command);
      }
    }, 240_000);
  }

  it('gave new tokens on each refresh (the refresh token rotates)', () => {
    expect(refreshTokens.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refreshTokens).size).toBe(refreshTokens.length);
  });

  it('the server logged no error meanwhile', () => {
    expect(serverLog().filter((record) => Number(record.level) >= 50)).toEqual([]);
  });

  it('the server ran on the database chosen for it, with the admin password in ./data as the page says', () => {
    const ready = serverLog().find((record) => record.msg === READY);
    const chosen =
      database!.database.kind === 'postgres'
        ? { database: 'postgres', databaseName: new URL(database!.database.url).pathname.slice(1) }
        : { database: 'embedded', dataDir: join(clone, 'data') };
    expect(ready).toMatchObject({ ...chosen, admin: { file: join(clone, 'data/admin-password.txt') } });
  });

  it('the doctor the page names passes while the server runs', async () => {
    const doctor = /`(npm run -s cli -- doctor)`/.exec(README)?.[1];
    expect(doctor, 'README.md names `npm run -s cli -- doctor`').toBeDefined();
    const result = await shell.run(doctor!);
    expect(result.status, `doctor:\n${result.stdout}${result.stderr}`).toBe(0);
    expect(statuses(JSON.parse(result.stdout) as DoctorCheck[])).toEqual(healthy('ok'));
  });
});
