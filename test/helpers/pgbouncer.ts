// A real PgBouncer (Debian's `pgbouncer` package, 1.18 on Debian 12) on a free loopback port in front of the test run's
// PostgreSQL: its own config in a temp dir, every database name passed through, stopped by stop().
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sleep } from './load.ts';
import { spawnTool } from './process.ts';
import { freePort } from './server.ts';

export interface PgBouncerOptions {
  poolMode?: 'session' | 'transaction';
  /** Startup parameters PgBouncer drops instead of refusing the connection (what operators add by hand). */
  ignoreStartupParameters?: string[];
  /** Server connections per database and user. */
  poolSize?: number;
  /** Further [pgbouncer] settings, e.g. deployedSettings() of deploy/pgbouncer.ini; they win over the options. */
  settings?: Record<string, string>;
}

// Where PgBouncer listens and how it authenticates are the test's own; everything else comes from the file.
const LOCAL_SETTINGS = new Set(['listen_addr', 'listen_port', 'unix_socket_dir', 'auth_type', 'auth_file']);

/** The [pgbouncer] settings of an ini file (deploy/pgbouncer.ini), without its addresses and authentication.
 *  (PgBouncer 1.18's `%include` did not apply the included settings when tried, hence read here.) */
export function deployedSettings(file: string): Record<string, string> {
  const settings: Record<string, string> = {};
  let section = '';
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith(';') || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    const [key, value] = line.split(/\s*=\s*(.*)/, 2);
    if (!header && section === 'pgbouncer' && !LOCAL_SETTINGS.has(key!)) settings[key!] = value ?? '';
  }
  return settings;
}

export interface PgBouncer {
  /** The URL of `databaseUrl` (a database on the test run's PostgreSQL) through PgBouncer. */
  url(databaseUrl: string): string;
  /** What PgBouncer wrote to its log so far. */
  log(): string;
  stop(): Promise<void>;
}

export async function startPgBouncer(serverUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pgbouncer-'));
  // Run as root, PgBouncer must be told a user to switch to, who then needs to read the files.
  chmodSync(dir, 0o755);
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text, { mode: 0o644 });
    return join(dir, name);
  };
  // Trust between the test and PgBouncer; PgBouncer logs in to PostgreSQL with the user's password from the
  // auth file (plain text works with both trust and scram pg_hba setups).
  const authFile = file('users.txt', `"${user}" "${password.replace(/"/g, '""')}"\n`);
  const settings: Record<string, string> = {
    pool_mode: options.poolMode ?? 'transaction',
    default_pool_size: String(options.poolSize ?? 20),
    max_client_conn: '500',
    ...options.settings,
  };
  const ini = file(
    'pgbouncer.ini',
    [
      '[databases]',
      `* = host=${server.hostname.replace(/^\[(.*)\]$/, '$1')} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${authFile}`,
      ...Object.entries(settings).map(([key, value]) => `${key} = ${value}`),
      ...(options.ignoreStartupParameters?.length
        ? [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(',')}`]
        : []),
      '',
    ].join('\n'),
  );

  const asRoot = process.getuid?.() === 0;
  const tool = spawnTool('pgbouncer', [...(asRoot ? ['-u', 'postgres'] : []), ini]);
  const stop = async () => {
    await tool.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const url = (databaseUrl: string) => {
    const through = new URL(databaseUrl);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    through.password = '';
    return through.toString();
  };

  // Ready when a query goes through (bounded).
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spawnError = tool.spawnError();
    if (spawnError) await stop();
    if (spawnError)
      throw new Error(`pgbouncer did not start (install Debian's pgbouncer package): ${spawnError.message}`);
    const client = new pg.Client({ connectionString: url(serverUrl), connectionTimeoutMillis: 1000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not answer within 15 s: ${(error as Error).message}\n${tool.log()}`);
      }
      await sleep(100);
    }
  }
  return { url, log: tool.log, stop };
}
