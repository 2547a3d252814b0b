// A real Patroni cluster on loopback (Debian's `patroni` 3.0 and `etcd-server` 3.4): one etcd member, two PostgreSQL 15
// members in synchronous replication, and HAProxy in TCP mode routing to the member whose Patroni REST API answers
// `GET /primary` with 200. Everything runs in temp directories and is removed by stop(), which also runs when start-up
// fails.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Haproxy, startHaproxy } from './haproxy.ts';
import { sleep, until } from './load.ts';
import { type ToolProcess, spawnTool } from './process.ts';
import { freePort } from './server.ts';

const PG_BIN = '/usr/lib/postgresql/15/bin';

/** The settings under test, as docs/operations.md ("Database failover") documents them. */
export const PATRONI_DCS = {
  ttl: 10,
  loop_wait: 1,
  retry_timeout: 4,
  // A crashed primary is failed over at once instead of restarted in place.
  primary_start_timeout: 0,
  // A commit is acknowledged only once the standby has it, so the standby that takes over has every
  // acknowledged write.
  synchronous_mode: true,
  postgresql: { use_pg_rewind: true, parameters: { max_connections: 100 } },
};

/** The HAProxy backend in front of the members: only the primary passes the check. */
export const haproxyBackend = (members: { name: string; pgPort: number; restPort: number }[]) => [
  'option httpchk GET /primary',
  'http-check expect status 200',
  'default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
  ...members.map((m) => `server ${m.name} 127.0.0.1:${m.pgPort} check port ${m.restPort}`),
];

export interface PatroniMember {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
}

export interface PatroniCluster {
  members: PatroniMember[];
  /** A database on the cluster through HAProxy, i.e. on whichever member is the primary. */
  url(database: string): string;
  /** The member whose REST API says it is the primary, if any. */
  primary(): Promise<PatroniMember | undefined>;
  /** Resolves once there is a primary with a synchronous standby behind it (bounded). */
  waitHealthy(timeoutMs: number): Promise<PatroniMember>;
  /** SIGKILL to a member's postmaster, as a crash would; returns its pid. */
  killPostmaster(member: PatroniMember): number;
  /** Patroni's, etcd's and HAProxy's output so far, for a failure message. */
  log(): string;
  stop(): Promise<void>;
}

/** PostgreSQL refuses to run as root, and Patroni with it: members run as `postgres` when the test runs as root. */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function spawnPatroni(config: string, owner: ReturnType<typeof postgresOwner>, home: string): ToolProcess {
  const child = spawn('patroni', [config], {
    env: { PATH: `${process.env.PATH ?? ''}:${PG_BIN}`, HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...owner,
  });
  let log = '';
  const append = (d: Buffer) => {
    log = (log + String(d)).slice(-20_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  let error: Error | undefined;
  child.on('error', (e) => {
    error = e;
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    log: () => log,
    spawnError: () => error,
    stop: async () => {
      // Patroni stops its PostgreSQL on SIGTERM; bounded like every other tool.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const postmasterPid = (member: PatroniMember): number | undefined => {
  const file = join(member.dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/** Whether `pid` is still that member's postmaster: a stale postmaster.pid (left by a SIGKILL) may name a pid the
 *  system has since given to another process, which must not be killed. */
const isPostmasterOf = (member: PatroniMember, pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(member.dataDir);
  } catch {
    return false;
  }
};

async function restStatus(member: PatroniMember, path: string): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${member.restPort}${path}`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

export async function startPatroniCluster(names = ['pg1', 'pg2']): Promise<PatroniCluster> {
  const owner = postgresOwner();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-patroni-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const scope = `gatehouse-${process.pid}-${Date.now()}`;
  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  const members: PatroniMember[] = [];
  for (const name of names) {
    members.push({ name, pgPort: await freePort(), restPort: await freePort(), dataDir: join(dir, name, 'data') });
  }

  const tools: ToolProcess[] = [];
  let haproxy: Haproxy | undefined;
  const log = () =>
    [...tools.map((t) => t.log()), haproxy?.log() ?? '']
      .map((text) => text.split('\n').slice(-30).join('\n'))
      .join('\n');
  const stop = async () => {
    await haproxy?.stop();
    for (const tool of tools.toReversed()) await tool.stop();
    // A postmaster outlives a Patroni that was killed; none may outlive the test.
    for (const member of members) {
      const pid = postmasterPid(member);
      if (pid && isPostmasterOf(member, pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const etcdDir = join(dir, 'etcd');
    tools.push(
      spawnTool('etcd', [
        '--name=etcd1',
        `--data-dir=${etcdDir}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=etcd1=http://127.0.0.1:${etcdPeer}`,
        '--log-level=warn',
      ]),
    );
    await until(
      async () =>
        (await fetch(`http://127.0.0.1:${etcdClient}/health`, { signal: AbortSignal.timeout(1000) })).status === 200,
      20_000,
      `etcd answers on 127.0.0.1:${etcdClient}`,
    );

    for (const member of members) {
      const home = join(dir, member.name);
      mkdirSync(home);
      if (owner) chownSync(home, owner.uid, owner.gid);
      const config = join(home, 'patroni.yml');
      // JSON is YAML: no YAML writer needed.
      const settings = {
        scope,
        name: member.name,
        restapi: { listen: `127.0.0.1:${member.restPort}`, connect_address: `127.0.0.1:${member.restPort}` },
        etcd3: { hosts: [`127.0.0.1:${etcdClient}`] },
        bootstrap: { dcs: PATRONI_DCS, initdb: [{ encoding: 'UTF8' }, { locale: 'C.UTF-8' }] },
        postgresql: {
          listen: `127.0.0.1:${member.pgPort}`,
          connect_address: `127.0.0.1:${member.pgPort}`,
          data_dir: member.dataDir,
          bin_dir: PG_BIN,
          pgpass: join(home, 'pgpass'),
          authentication: {
            superuser: { username: 'postgres', password: 'postgres' },
            replication: { username: 'replicator', password: 'replicator' },
          },
          // Loopback only, throwaway cluster: trust, as the machine's test PostgreSQL.
          pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
          parameters: { unix_socket_directories: home },
        },
      };
      writeFileSync(config, JSON.stringify(settings, null, 2));
      if (owner) chownSync(config, owner.uid, owner.gid);
      tools.push(spawnPatroni(config, owner, home));
    }

    haproxy = await startHaproxy(haproxyBackend(members), { mode: 'tcp' });
    const proxy = haproxy;
    const primary = async () => {
      for (const member of members) if ((await restStatus(member, '/primary')) === 200) return member;
      return undefined;
    };
    const cluster: PatroniCluster = {
      members,
      url: (database) => `postgres://postgres@${proxy.url.replace(/^\w+:\/\//, '')}/${database}`,
      primary,
      waitHealthy: async (timeoutMs) => {
        let found: PatroniMember | undefined;
        await until(
          async () => {
            found = await primary();
            const standbys = members.filter((m) => m !== found);
            const standbyCheck = PATRONI_DCS.synchronous_mode ? '/sync' : '/replica';
            const synchronous = await Promise.all(standbys.map((m) => restStatus(m, standbyCheck)));
            // HAProxy counts a server as up until its checks failed `fall` times: a query must reach a writable
            // primary through it, several times in a row.
            return Boolean(found) && synchronous.every((s) => s === 200) && (await writableThrough(proxy.url, 5));
          },
          timeoutMs,
          'a Patroni primary with a synchronous standby, writable through HAProxy',
        );
        return found!;
      },
      killPostmaster: (member) => {
        const pid = postmasterPid(member);
        if (!pid) throw new Error(`${member.name} has no postmaster.pid`);
        process.kill(pid, 'SIGKILL');
        return pid;
      },
      log,
      stop,
    };
    await cluster.waitHealthy(120_000);
    return cluster;
  } catch (error) {
    const output = log();
    await stop();
    throw new Error(`the Patroni cluster did not start: ${(error as Error).message}\n${output}`);
  }
}

/** Whether `times` connections in a row through `url` (host:port) reach a primary (not in recovery). */
async function writableThrough(url: string, times: number): Promise<boolean> {
  const { hostname, port } = new URL(url.replace(/^\w+:/, 'postgres:'));
  for (let i = 0; i < times; i++) {
    const client = new pg.Client({
      host: hostname,
      port: Number(port),
      user: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 2000,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      if (rows[0]!.standby) return false;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
    await sleep(200);
  }
  return true;
}
