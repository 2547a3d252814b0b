// Database time per request (docs/operations.md, "Capacity"): the CPU that PostgreSQL's backends for the
// bench's database spent, read from /proc like the Gatehouse process's memory, so it works only with PostgreSQL on
// this machine (the bench runs on loopback). Background work shared by all databases (WAL writer, checkpointer,
// autovacuum) is not counted; a backend that ends during a scenario takes its time with it (the pool keeps them).
import pg from 'pg';
import { APPLICATION_NAME } from '../src/platform/db.ts';
import { processCpuMs } from './machine-cpu.ts';

/** CPU milliseconds spent so far by each of Gatehouse's pool backends on the database of `database` (a URL, or a
 *  client kept open on it: the CPU budget reads it twice a window, where a new connection each time cost more than
 *  the window), by process id, or undefined when they cannot be read (PostgreSQL on another machine), not the bench's
 *  own connections, such as the scale run's sweep. `cpuMs` reads one backend (preciseCpuMs for short windows). */
export async function databaseCpu(
  database: string | pg.Client,
  cpuMs: (pid: number) => number = processCpuMs,
): Promise<Map<number, number> | undefined> {
  const client = typeof database === 'string' ? new pg.Client({ connectionString: database }) : database;
  if (client !== database) await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [APPLICATION_NAME],
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) cpu.set(pid, cpuMs(pid));
    return cpu;
  } catch {
    return undefined;
  } finally {
    if (client !== database) await client.end();
  }
}

/** The CPU milliseconds the backends spent between two readings (a backend that started in between counts whole). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, spent] of after) ms += spent - (before.get(pid) ?? 0);
  return ms;
}

/** The server settings that shape every figure of a run on PostgreSQL (with autovacuum off nothing is vacuumed or
 *  analyzed during it, as on some CI machines), as `name value` pairs for the report's header. */
export async function serverSettings(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; value: string }>(
      'SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1) ORDER BY name',
      [['autovacuum', 'shared_buffers', 'synchronous_commit', 'fsync', 'max_connections', 'server_version']],
    );
    return rows.map((r) => `${r.name} ${r.value}`).join(', ');
  } finally {
    await client.end();
  }
}
