// The CLI while `npm start`'s server runs, as a newcomer uses it: on the embedded database the command is handed to
// the server that holds the data directory, on PostgreSQL it shares the database. An app made with the defaults gets
// a refresh token in a code flow, `admin token` calls the management API as curl would, doctor passes; stopped, the
// same commands print the same shape. Then what goes wrong around it: a server that stops in the middle of a command,
// a start on a port in use.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthy, runCli, statuses, type CliResult, type DoctorCheck } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { openIdClientSignIn, rpConfig } from '../helpers/oidc.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { spawnGatehouse, waitForOk, type GatehouseProcess } from '../helpers/process.ts';
import { freePort, testEnv, type TestServer } from '../helpers/server.ts';

const REDIRECT = 'https://rp.example.com/cli-callback';

const json = (result: CliResult) => {
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
};

/** The value with every leaf replaced by its type: what two runs of a command must agree on. */
const shape = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shape)
    : typeof value === 'object' && value !== null
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : typeof value;

/** What a server that died leaves in its data directory: the lock naming its pid, and its socket. */
async function leaveDeadServer(dir: string): Promise<void> {
  const path = join(dir, 'cli.sock');
  const child = spawn(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
  ]);
  await once(child.stdout, 'data');
  writeFileSync(join(dir, 'gatehouse.lock'), String(child.pid));
  child.kill('SIGKILL');
  await once(child, 'exit');
  expect(existsSync(path)).toBe(true);
}

describe('the CLI while the server runs', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let url: string;
  let server: GatehouseProcess;
  let app: { projectId: string; clientId: string; clientSecret: string };
  // outputs while the server runs, compared with the same commands' after it stopped
  const running: Record<string, unknown> = {};
  const dataDir = () => database.env.GATEHOUSE_DATA_DIR!;

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    env = testEnv(port, database, { LOG_LEVEL: 'warn' });
    url = `http://127.0.0.1:${port}`;
    if (!isPostgres) await leaveDeadServer(dataDir());
    server = spawnGatehouse(env);
    await waitForOk(`${url}/readyz`, 60_000);
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited(20_000);
    await database?.drop();
  });

  it('app create with the defaults and user import; the user signs in and the app refreshes its token', async () => {
    app = json(await runCli(['app', 'create', '--project', 'Demo', '--name', 'web', '--redirect-uri', REDIRECT], env));
    expect(app).toMatchObject({ clientSecret: expect.any(String), complianceProblems: [] });
    const user = ['--username', 'ada', '--email', 'ada@example.com', '--first-name', 'Ada', '--last-name', 'L'];
    const imported = json(await runCli(['user', 'import', ...user, '--password-stdin'], env, 'Ada-Password-1\n'));
    expect(imported).toMatchObject({ userName: 'ada', loginName: expect.stringMatching(/^ada@/) });

    const served = { url, config: { issuer: url } } as unknown as TestServer;
    const config = await rpConfig(served, app.clientId, client.ClientSecretBasic(app.clientSecret));
    const tokens = await openIdClientSignIn(served, config, {
      redirectUri: REDIRECT,
      scope: 'openid profile offline_access',
      loginName: 'ada',
      password: 'Ada-Password-1',
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
  });

  it('admin token: a management API call with it, as curl makes it; the token is never logged', async () => {
    const printed = await runCli(['admin', 'token'], env);
    expect(printed.stderr).toBe('');
    expect(printed.status).toBe(0);
    expect(printed.stdout).toMatch(/^[\w-]{43}\n$/);
    const headers = { authorization: `Bearer ${printed.stdout.trim()}`, 'content-type': 'application/json' };
    const me = await fetch(`${url}/management/v1/orgs/me`, { headers });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { org: { name: string } }).org.name).toBe('Gatehouse');
    const projects = await fetch(`${url}/management/v1/projects/_search`, { method: 'POST', headers, body: '{}' });
    expect(((await projects.json()) as { result: { name: string }[] }).result.map((p) => p.name)).toEqual(['Demo']);
    expect(server.output()).not.toContain(printed.stdout.trim());
    running.token = json(await runCli(['admin', 'token', '--output', 'json'], env));
    expect(running.token).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600 });
  });

  it('user pat add, list and remove: the token acts as its machine user at once, and stops when removed', async () => {
    const machine = json(await runCli(['service-user', 'create', '--username', 'ci', '--secret'], env));
    const added = json(await runCli(['user', 'pat', 'add', '--user-id', machine.userId], env));
    expect(added).toEqual({
      tokenId: expect.any(String),
      token: expect.stringMatching(/^gatehouse_pat_[\w-]{43}$/),
      expirationDate: '9999-12-31T23:59:59.000Z',
    });
    const me = () => fetch(`${url}/auth/v1/users/me`, { headers: { authorization: `Bearer ${added.token}` } });
    const answer = await me();
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { user: { userName: string } }).user.userName).toBe('ci');
    const listed = await runCli(['user', 'pat', 'list', '--user-id', machine.userId], env);
    expect(json(listed)).toMatchObject({ totalResult: '1', tokens: [{ tokenId: added.tokenId }] });
    expect(listed.stdout).not.toContain(added.token);
    const removed = ['user', 'pat', 'remove', '--user-id', machine.userId, '--id', added.tokenId];
    expect(json(await runCli(removed, env))).toEqual({ tokenId: added.tokenId, removed: true });
    expect((await me()).status).toBe(401);
    expect((await runCli(removed, env)).stderr).toMatch(/Personal Access Token not found/);
    const past = await runCli(['user', 'pat', 'add', '--user-id', machine.userId, '--expiration-date', 'soon'], env);
    expect([past.status, past.stderr]).toEqual([2, expect.stringMatching(/--expiration-date must be a date/)]);
    expect(server.output()).not.toContain(added.token);
  });

  it('doctor passes; an existing project name answers with its ID and --project-id; project list', async () => {
    const checks = json(await runCli(['doctor'], env)) as DoctorCheck[];
    expect(statuses(checks)).toEqual(healthy('ok'));
    if (!isPostgres) expect(checks[1]!.detail).toMatch(/through the running server \(process \d+\)$/);
    running.doctor = checks;

    const again = await runCli(['app', 'create', '--project', 'demo', '--name', 'x', '--redirect-uri', REDIRECT], env);
    expect(again.status).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `gatehouse app create: the project "Demo" exists already (id ${app.projectId}): add the app to it with ` +
        `--project-id ${app.projectId}, or name a new project with --project\n`,
    );
    running.projects = json(await runCli(['project', 'list'], env));
    expect(running.projects).toEqual({
      totalResult: '1',
      projects: [{ projectId: app.projectId, name: 'Demo', state: 'active' }],
    });
    running.table = (await runCli(['project', 'list', '--output', 'table'], env)).stdout;
    running.users = json(await runCli(['user', 'list'], env));
  });

  it('stopped, the same commands print the same; doctor passes and says the server is not running', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited(20_000)).toBe(0);
    if (!isPostgres) {
      expect(existsSync(join(dataDir(), 'cli.sock'))).toBe(false);
      await leaveDeadServer(dataDir());
    }
    expect(json(await runCli(['project', 'list'], env))).toEqual(running.projects);
    expect((await runCli(['project', 'list', '--output', 'table'], env)).stdout).toBe(running.table);
    expect(json(await runCli(['user', 'list'], env))).toEqual(running.users);
    expect(shape(json(await runCli(['admin', 'token', '--output', 'json'], env)))).toEqual(shape(running.token));

    const checks = json(await runCli(['doctor'], env)) as DoctorCheck[];
    expect(shape(checks)).toEqual(shape(running.doctor));
    expect(statuses(checks)).toEqual(healthy('info'));
    expect(checks.at(-1)!.detail).toBe(
      `server not running: nothing listens at ${url}/.well-known/openid-configuration`,
    );
  });
});

describe('a server that stops in the middle of a command', () => {
  it('the CLI says that whether the command took effect is unknown, exit code 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-handoff-'));
    // a stand-in for the server: it holds the lock (this process is alive) and drops the command it is sent
    writeFileSync(join(dir, 'gatehouse.lock'), String(process.pid));
    const standIn = createServer((socket) => socket.once('data', () => socket.destroy()));
    standIn.listen(join(dir, 'cli.sock'));
    await once(standIn, 'listening');
    try {
      const result = await runCli(['project', 'list'], { GATEHOUSE_DATA_DIR: dir, LOG_LEVEL: 'warn' });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `gatehouse project list: the server (process ${process.pid}) stopped before the command finished; whether ` +
          `the command took effect is unknown: look (a list command) before running it again\n`,
      );
    } finally {
      standIn.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start on a port in use', () => {
  it('is one line naming PORT, exit code 2, before the database opens', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as { port: number };
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-port-'));
    try {
      const start = spawnGatehouse({ PORT: String(port), HOST: '127.0.0.1', GATEHOUSE_DATA_DIR: dir });
      expect(await start.exited(20_000)).toBe(2);
      expect(start.output()).toBe(
        `gatehouse: PORT ${port} is in use on 127.0.0.1 by another process: stop it, or set PORT to a free port\n`,
      );
      expect(existsSync(join(dir, 'pg'))).toBe(false);
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
