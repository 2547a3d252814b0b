// What a person needs once the server is ready: where to sign in, what it runs on, where the first password is. One
// record says it: a JSON line for machines, a banner on a terminal (log-pretty.ts), so the two never tell different
// facts. The issuer comes first: it is the address browsers and clients must use (cookies and tokens belong to its
// host); the listening address is only where the socket is, and often another name of the same machine.
import { resolve } from 'node:path';
import type { Config } from '../config.ts';

export const READY = 'gatehouse is ready';

export interface ReadyFacts {
  issuer: string;
  console: string;
  discovery: string;
  database: 'embedded' | 'postgres';
  /** The embedded database's directory, absolute. */
  dataDir?: string;
  /** PostgreSQL's host:port and database name; never its user or password. */
  databaseHost?: string;
  databaseName?: string;
  /** Only when this start generated the admin password: the file it is in, never the password. (A member named like
   *  a password would be redacted from the log, file name and all: logger.ts.) */
  admin?: { userName: string; file: string };
  workers?: number;
  /** Where the socket listens. */
  url: string;
}

/** What a start knows beyond the configuration: the address it listens on (the configured one when the primary of
 *  several workers says it), the admin password file it wrote, its workers. */
export interface Started {
  url?: string;
  adminPasswordFile?: string | undefined;
  workers?: number;
}

export function readyFacts(config: Config, started: Started): ReadyFacts {
  const { database } = config;
  const postgres = database.kind === 'postgres' ? new URL(database.url) : undefined;
  return {
    issuer: config.issuer,
    console: `${config.issuer}/ui/console`,
    discovery: `${config.issuer}/.well-known/openid-configuration`,
    database: database.kind,
    dataDir: database.kind === 'embedded' ? resolve(database.dataDir) : undefined,
    databaseHost: postgres?.host,
    databaseName: postgres && decodeURIComponent(postgres.pathname.slice(1)),
    admin: started.adminPasswordFile
      ? { userName: config.admin.userName, file: resolve(started.adminPasswordFile) }
      : undefined,
    workers: started.workers,
    url: started.url ?? `${config.tls ? 'https' : 'http'}://${hostInUrl(config.host)}:${config.port}`,
  };
}

const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The banner's rows, label and value, in the order a newcomer needs them. */
export function bannerRows(facts: Partial<ReadyFacts>): [label: string, value: string][] {
  const rows: [string, string | undefined][] = [
    ['Issuer', facts.issuer],
    ['Admin console', facts.console],
    ['Discovery', facts.discovery],
    [
      'Database',
      facts.database === 'postgres'
        ? `PostgreSQL on ${facts.databaseHost}${facts.databaseName ? `, database ${facts.databaseName}` : ''}`
        : `embedded, in ${facts.dataDir}`,
    ],
    [
      'Admin password',
      facts.admin && `in ${facts.admin.file} (user ${facts.admin.userName}): sign in, change it, then delete the file`,
    ],
    ['Workers', facts.workers?.toString()],
    ['Listening on', facts.url],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined);
}
