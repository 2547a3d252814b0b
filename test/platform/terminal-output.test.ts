// What `npm start` prints, as an operator sees it: on a terminal, readable lines and a banner that names the issuer
// first, the console, the database and the file of the admin password generated on this start; piped, JSON lines with
// one structured ready line saying the same, with several workers too. A secret in a logged request stays redacted in
// both.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { spawnGatehouse, type GatehouseProcess } from '../helpers/process.ts';
import { freePort, testEnv } from '../helpers/server.ts';

const ESC = String.fromCharCode(27);
const plain = (text: string) => text.replaceAll('\r\n', '\n').replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');

async function until(proc: GatehouseProcess, seen: (output: string) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!seen(proc.output())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within 120 s:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the output of npm start', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  /** A first start on a fresh database (the admin password generated), issuer on localhost, listening on 127.0.0.1. */
  async function firstStart(env: Record<string, string>, options: { terminal?: boolean } = {}) {
    const database: TestDatabase = await createTestDatabase();
    // the generated password's file is written to the data directory, with PostgreSQL too
    const dataDir = database.env.GATEHOUSE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'gatehouse-output-'));
    cleanups.push(
      () => database.drop(),
      () => rmSync(dataDir, { recursive: true, force: true }),
    );
    const port = await freePort();
    const issuer = `http://localhost:${port}`;
    const startEnv = testEnv(port, database, { GATEHOUSE_ISSUER: issuer, GATEHOUSE_DATA_DIR: dataDir, ...env });
    delete startEnv.GATEHOUSE_ADMIN_PASSWORD;
    const proc = spawnGatehouse(startEnv, options);
    cleanups.push(() => void proc.child.kill('SIGKILL'));
    const password = () => readFileSync(join(dataDir, 'admin-password.txt'), 'utf8').trim();
    const request = () =>
      fetch(`http://127.0.0.1:${port}/oauth/v2/keys?access_token=secret-in-url`, {
        headers: { authorization: 'Bearer secret-in-header' },
      });
    return { proc, port, issuer, dataDir, password, request, database };
  }

  it('on a terminal: the banner with the issuer first and the console URL, readable lines, no JSON', async () => {
    // request lines are shown on a terminal from debug on
    const start = await firstStart({ LOG_LEVEL: 'debug' }, { terminal: true });
    const { proc, port, issuer } = start;
    await until(proc, (out) => out.includes('Gatehouse is ready'), 'banner');
    expect((await start.request()).status).toBe(200);
    await until(proc, (out) => plain(out).includes('GET /oauth/v2/keys'), 'request line');

    const raw = proc.output();
    expect(raw).toContain(`${ESC}[`); // colours, on a terminal only
    const out = plain(raw);
    const banner = out.slice(out.indexOf('Gatehouse is ready'));
    const rows = banner.split('\n').map((line) => line.trim());
    const row = (label: string) => rows.find((line) => line.startsWith(label));
    expect(row('Issuer')).toMatch(new RegExp(`^Issuer\\s+${issuer}$`));
    expect(row('Admin console')).toMatch(new RegExp(`\\s${issuer}/ui/console$`));
    expect(row('Discovery')).toMatch(new RegExp(`\\s${issuer}/.well-known/openid-configuration$`));
    expect(row('Admin password')).toContain(`in ${join(start.dataDir, 'admin-password.txt')} (user admin)`);
    expect(row('Listening on')).toMatch(new RegExp(`\\shttp://127.0.0.1:${port}$`));
    expect(rows.indexOf(row('Issuer')!)).toBeLessThan(rows.indexOf(row('Listening on')!));
    const database = start.database.database;
    expect(row('Database')).toMatch(
      database.kind === 'embedded' ? `embedded, in ${start.dataDir}` : /^Database\s+PostgreSQL on /,
    );

    expect(out).toMatch(/^\d\d:\d\d:\d\d DEBUG GET \/oauth\/v2\/keys\?access_token=\[redacted\] 200 \d+ ms$/m);
    expect(out).toMatch(/^\d\d:\d\d:\d\d WARN {2}created the admin user with a generated password/m);
    expect(out.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    expect(out).not.toContain('secret-in-');
    expect(out).not.toContain(start.password());
    expect(out).not.toContain('gatehouse_ci:'); // the database's password

    proc.interrupt();
    expect(await proc.exited(30_000)).toBe(0);
    expect(plain(proc.output())).toMatch(/INFO {2}shutting down signal=SIGINT/);
  }, 180_000);

  it('piped: JSON lines, one of them the ready line with the same facts', async () => {
    const start = await firstStart({});
    const { proc, port, issuer } = start;
    await until(proc, (out) => out.includes('"gatehouse is ready"'), 'ready line');
    expect((await start.request()).status).toBe(200);
    await until(proc, (out) => out.includes('"request completed"'), 'request line');

    const lines = proc
      .output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const ready = lines.filter((line) => line.msg === 'gatehouse is ready');
    expect(ready).toHaveLength(1);
    expect(ready[0]).toMatchObject({
      issuer,
      console: `${issuer}/ui/console`,
      discovery: `${issuer}/.well-known/openid-configuration`,
      database: start.database.database.kind,
      admin: { userName: 'admin', file: join(start.dataDir, 'admin-password.txt') },
      url: `http://127.0.0.1:${port}`,
    });
    const incoming = lines.find((line) => line.msg === 'incoming request');
    expect(incoming?.req).toMatchObject({ method: 'GET', url: '/oauth/v2/keys?access_token=[redacted]' });
    expect(proc.output()).not.toContain('secret-in-');
    expect(proc.output()).not.toContain(start.password());

    proc.interrupt();
    expect(await proc.exited(30_000)).toBe(0);
  }, 180_000);

  // Several workers need PostgreSQL. The worker that creates the instance writes the password; the primary says
  // ready for all of them, and must still name the file.
  it.runIf(process.env.DATABASE_URL)(
    'two workers: the primary ready line names the file a worker wrote',
    async () => {
      const { proc, dataDir } = await firstStart({ GATEHOUSE_WORKERS: '2' });
      await until(proc, (out) => out.includes('"gatehouse is ready"'), 'ready line');
      const ready = proc
        .output()
        .split('\n')
        .filter((line) => line.includes('"gatehouse is ready"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(ready).toHaveLength(1);
      expect(ready[0]).toMatchObject({
        workers: 2,
        admin: { userName: 'admin', file: join(dataDir, 'admin-password.txt') },
      });
      proc.interrupt();
      expect(await proc.exited(30_000)).toBe(0);
    },
    180_000,
  );
});
