// A real HAProxy (Debian's `haproxy` package, 2.6 on Debian 12) on loopback in front of Gatehouse nodes: its own config
// in a temp dir, or a config file of deploy/ with its addresses from the environment; an admin socket to read the
// servers' check results; stopped by stop().
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './load.ts';
import { spawnTool } from './process.ts';
import { freePort } from './server.ts';

export interface HaproxyServerStat {
  name: string;
  status: string;
  checkStatus: string;
  failedChecks: number;
}

export interface Haproxy {
  /** The frontend's URL. */
  url: string;
  /** `show stat` of a backend's servers (default: the first one started with): status (UP, DOWN, …), the last
   *  check's result (L7OK, SOCKERR, …) and the number of failed checks. HAProxy's leading "* " (a check is running
   *  now) is left off. */
  servers(backend?: string): Promise<HaproxyServerStat[]>;
  /** A line for the admin socket, e.g. `disable server be/node1`; resolves with HAProxy's answer. */
  command(line: string): Promise<string>;
  log(): string;
  stop(): Promise<void>;
}

/** `backend` is the body of the backend section (option httpchk …, server lines); the frontend forwards to it.
 *  TCP mode (a Postgres primary behind it) keeps idle connections as long as the database would. */
export async function startHaproxy(backend: string[], options: { mode?: 'http' | 'tcp' } = {}): Promise<Haproxy> {
  const mode = options.mode ?? 'http';
  const idle = mode === 'tcp' ? '30m' : '10s';
  const port = await freePort();
  const config = [
    'defaults',
    `  mode ${mode}`,
    '  timeout connect 2s',
    `  timeout client ${idle}`,
    `  timeout server ${idle}`,
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  default_backend be',
    'backend be',
    ...backend.map((line) => `  ${line}`),
    '',
  ].join('\n');
  return launch({ port, backend: 'be', config });
}

/**
 * HAProxy with a config file as operators run it (deploy/haproxy.cfg), its addresses in `env` (the file reads them
 * with "${NAME}"), its frontend bound to a free loopback port named `bindVariable`. `extra` is appended as a file of
 * its own (e.g. a test-only backend).
 */
export async function startHaproxyFromFile(options: {
  file: string;
  backend: string;
  bindVariable: string;
  env: Record<string, string>;
  extra?: string[];
}): Promise<Haproxy> {
  const port = await freePort();
  return launch({
    port,
    backend: options.backend,
    files: [options.file],
    config: (options.extra ?? []).join('\n'),
    env: { ...options.env, [options.bindVariable]: `127.0.0.1:${port}` },
  });
}

async function launch(options: {
  port: number;
  backend: string;
  config: string;
  files?: string[];
  env?: Record<string, string>;
}): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-haproxy-'));
  const socket = join(dir, 'admin.sock');
  // the admin socket in a global section of its own; HAProxy merges repeated global sections
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, ['global', `  stats socket ${socket} mode 600 level admin`, options.config, ''].join('\n'));
  const files = [config, ...(options.files ?? [])].flatMap((f) => ['-f', f]);
  const tool = spawnTool('haproxy', ['-db', ...files], options.env);

  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const s = connect(socket);
      let out = '';
      s.setTimeout(2000, () => s.destroy(new Error(`haproxy admin socket: no answer to ${line}`)));
      s.on('connect', () => s.write(`${line}\n`));
      s.on('data', (d) => {
        out += String(d);
      });
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
  const servers = async (backend = options.backend) => {
    const [head, ...rows] = (await command('show stat')).trim().split('\n');
    const columns = head!.replace(/^# /, '').split(',');
    const at = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    return rows
      .map((r) => r.split(','))
      .filter((r) => r[0] === backend && !['FRONTEND', 'BACKEND'].includes(r[1]!))
      .map((r) => ({
        name: r[1]!,
        status: at(r, 'status'),
        checkStatus: at(r, 'check_status').replace(/^\* /, ''),
        failedChecks: Number(at(r, 'chkfail')),
      }));
  };
  const stop = async () => {
    await tool.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    const spawnError = tool.spawnError();
    if (spawnError) await stop();
    if (spawnError) throw new Error(`haproxy did not start (install Debian's haproxy package): ${spawnError.message}`);
    try {
      await servers();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(
          `haproxy did not answer on its admin socket within 10 s: ${(error as Error).message}\n${tool.log()}`,
        );
      }
      await sleep(100);
    }
  }
  return { url: `http://127.0.0.1:${options.port}`, servers, command, log: tool.log, stop };
}
