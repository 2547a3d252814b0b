// `gatehouse doctor`: read-only checks an operator runs when something does not work: configuration, database
// and schema, the instance, the signing keys (and that the master key opens them), and the issuer's discovery. It
// passes on a healthy setup whether the server runs or not: a stopped server is information, not a failure.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { listMigrations, schemaVersion } from '../platform/migrate.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox } from '../platform/secrets.ts';
import { findInstance } from '../instance/queries.ts';
import { checkSigningKey } from '../oidc/keys.ts';
import {
  OUTPUT_HELP,
  OUTPUT_OPTION,
  parseOptions,
  print,
  withDb,
  type Command,
  type CommandContext,
} from './command.ts';

interface Check {
  check: string;
  /** info: a fact that is no failure (a stopped server). */
  status: 'ok' | 'fail' | 'info';
  detail: string;
}

const ISSUER_TIMEOUT_MS = 5000;

async function databaseChecks(ctx: CommandContext, db: Db): Promise<Check[]> {
  const { config, database } = ctx;
  const through = database.serverPid ? ` through the running server (process ${database.serverPid})` : '';
  const checks: Check[] = [
    { check: 'database', status: 'ok', detail: `${config.database.kind} database reachable${through}` },
  ];
  const shipped = Math.max(0, ...listMigrations().map((m) => m.version));
  const version = await schemaVersion(db);
  checks.push(schemaCheck(version, shipped));
  if (version < shipped) return checks;
  const instance = await findInstance(db);
  if (!instance) {
    checks.push({
      check: 'instance',
      status: 'fail',
      detail: 'no instance yet: start the server once (or run a provisioning command)',
    });
    return checks;
  }
  checks.push({ check: 'instance', status: 'ok', detail: `instance ${instance.id}, domain ${instance.domain}` });
  try {
    const kid = await checkSigningKey(db, createSecretBox(resolveMasterKey(config)));
    checks.push({ check: 'signing keys', status: 'ok', detail: `signing key ${kid} opens with the master key` });
  } catch (error) {
    checks.push({
      check: 'signing keys',
      status: 'fail',
      detail:
        `no usable signing key (${(error as Error).message}): the server creates one at its first start; ` +
        `GATEHOUSE_MASTER_KEY must be the server's`,
    });
  }
  return checks;
}

function schemaCheck(version: number, shipped: number): Check {
  if (version === shipped) return { check: 'schema', status: 'ok', detail: `version ${version}` };
  const detail =
    version < shipped
      ? `version ${version}, this release needs ${shipped}: run "gatehouse migrate"`
      : `version ${version} is newer than this release knows (${shipped}): run the release that migrated it`;
  return { check: 'schema', status: 'fail', detail };
}

/** The issuer's discovery document. Nothing listening there is a stopped server, unless this command runs in it. */
async function issuerCheck(config: Config, serverRuns: boolean): Promise<Check> {
  const url = `${config.issuer}/.well-known/openid-configuration`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS), redirect: 'manual' });
    if (response.status !== 200)
      return { check: 'issuer', status: 'fail', detail: `${url} answered ${response.status}` };
    const { issuer } = (await response.json()) as { issuer?: string };
    if (issuer !== config.issuer)
      return { check: 'issuer', status: 'fail', detail: `${url} names issuer ${issuer}, configured ${config.issuer}` };
    return { check: 'issuer', status: 'ok', detail: `${url} reachable` };
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    if (reason === 'ECONNREFUSED' && !serverRuns)
      return { check: 'issuer', status: 'info', detail: `server not running: nothing listens at ${url}` };
    return { check: 'issuer', status: 'fail', detail: `${url} not reachable (${reason})` };
  }
}

export const doctor: Command = {
  summary: 'check configuration, database, signing keys and issuer reachability',
  help: `Usage: gatehouse doctor [--output json|table]

Runs read-only checks and prints one row per check (ok, fail or info) with details:
configuration, database reachable, schema the version this release knows, instance created, a signing key that
opens with GATEHOUSE_MASTER_KEY, and the issuer's discovery document reachable at GATEHOUSE_ISSUER.
Exit code 0 when no check fails, 1 otherwise. It runs whether the server runs or not: while a server holds the
embedded database, the database is checked through that server; with the server stopped, the issuer check says
"server not running" (info, no failure) and every other check still runs.

${OUTPUT_HELP}`,
  async run(args, ctx) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const { config } = ctx;
    const checks: Check[] = [
      { check: 'configuration', status: 'ok', detail: `issuer ${config.issuer}, ${config.database.kind} database` },
    ];
    try {
      checks.push(...(await withDb(ctx, (db) => databaseChecks(ctx, db))));
    } catch (error) {
      checks.push({ check: 'database', status: 'fail', detail: (error as Error).message });
    }
    checks.push(await issuerCheck(config, ctx.database.serverPid !== undefined));
    print(ctx, checks as unknown as Record<string, unknown>[], options.output);
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
