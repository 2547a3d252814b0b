// A real HAProxy (Debian's `haproxy` package, 2.6 on Debian 12) on loopback in front of Gatehouse nodes (issue 24):
// its own config in a temp dir, an admin socket to read the servers' check results, stopped by stop().
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './load.ts';
import { freePort } from './server.ts';

export interface HaproxyServerStat { name: string; status: string; checkStatus: string; failedChecks: number }

export interface Haproxy {
  /** The frontend's URL. */
  url: string;
  /** `show stat` of the backend's servers: status (UP, DOWN, …), the last check's result (L7OK, SOCKERR, …) and
   *  the number of failed checks. HAProxy's leading "* " (a check is running now) is left off. */
  servers(): Promise<HaproxyServerStat[]>;
  log(): string;
  stop(): Promise<void>;
}

/** `backend` is the body of the backend section (option httpchk …, server lines); the frontend forwards to it. */
export async function startHaproxy(backend: string[]): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-haproxy-'));
  const socket = join(dir, 'admin.sock');
  const port = await freePort();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 10s',
    '  timeout server 10s',
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  default_backend be',
    'backend be',
    ...backend.map((line) => `  ${line}`),
    '',
  ].join('\n'));
  const child = spawn('haproxy', ['-db', '-f', config], { env: { PATH: `${process.env.PATH ?? ''}:/usr/sbin` }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => { log += String(d); });
  child.stderr.on('data', (d) => { log += String(d); });
  let spawnError: Error | undefined;
  child.on('error', (error) => { spawnError = error; });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));

  const command = (line: string) => new Promise<string>((resolve, reject) => {
    const s = connect(socket);
    let out = '';
    s.setTimeout(2000, () => s.destroy(new Error(`haproxy admin socket: no answer to ${line}`)));
    s.on('connect', () => s.write(`${line}\n`));
    s.on('data', (d) => { out += String(d); });
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
  const servers = async () => {
    const [head, ...rows] = (await command('show stat')).trim().split('\n');
    const columns = head!.replace(/^# /, '').split(',');
    const at = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    return rows.map((r) => r.split(',')).filter((r) => r[0] === 'be' && !['FRONTEND', 'BACKEND'].includes(r[1]!))
      .map((r) => ({ name: r[1]!, status: at(r, 'status'), checkStatus: at(r, 'check_status').replace(/^\* /, ''), failedChecks: Number(at(r, 'chkfail')) }));
  };
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (spawnError) throw new Error(`haproxy did not start (install Debian's haproxy package): ${spawnError.message}`);
    try {
      await servers();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`haproxy did not answer on its admin socket within 10 s: ${(error as Error).message}\n${log}`);
      }
      await sleep(100);
    }
  }
  return { url: `http://127.0.0.1:${port}`, servers, log: () => log, stop };
}
