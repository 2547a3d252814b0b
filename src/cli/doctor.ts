// `gatehouse doctor`: read-only checks an operator runs when something does not work: configuration, database
// and schema, the instance, the signing keys (and that the master key opens them), and the issuer's discovery.
import type { Config } from '../config.ts';
import { openDb, type Db } from '../platform/db.ts';
import { listMigrations, schemaVersion } from '../platform/migrate.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox } from '../platform/secrets.ts';
import { findInstance } from '../instance/queries.ts';
import { checkSigningKey } from '../oidc/keys.ts';
import { OUTPUT_HELP, OUTPUT_OPTION, parseOptions, print, type Command } from './command.ts';

interface Check {
  check: string;
  status: 'ok' | 'fail' | 'skipped';
  detail: string;
}

const ISSUER_TIMEOUT_MS = 5000;

async function databaseChecks(config: Config, db: Db): Promise<Check[]> {
  const checks: Check[] = [{ check: 'database', status: 'ok', detail: `${config.database.kind} database reachable` }];
  const shipped = Math.max(0, ...listMigrations().map((m) => m.version));
  const version = await schemaVersion(db);
  checks.push(
    version >= shipped
      ? { check: 'schema', status: 'ok', detail: `version ${version}` }
      : {
          check: 'schema',
          status: 'fail',
          detail: `version ${version}, this release needs ${shipped}: run "gatehouse migrate"`,
        },
  );
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

async function issuerCheck(config: Config): Promise<Check> {
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
    return {
      check: 'issuer',
      status: 'fail',
      detail: `${url} not reachable (${(error as Error).message}); is the server running?`,
    };
  }
}

export const doctor: Command = {
  summary: 'check configuration, database, signing keys and issuer reachability',
  help: `Usage: gatehouse doctor [--output json|table]

Runs read-only checks and prints one row per check (ok, fail or skipped) with details:
configuration, database reachable, schema up to date, instance created, a signing key that opens with
GATEHOUSE_MASTER_KEY, and the issuer's discovery document reachable at GATEHOUSE_ISSUER.
Exit code 0 when every check passes, 1 otherwise. (With the embedded database, run it while the server is
stopped: the data directory belongs to one process at a time.)

${OUTPUT_HELP}`,
  async run(args, config) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const checks: Check[] = [
      { check: 'configuration', status: 'ok', detail: `issuer ${config.issuer}, ${config.database.kind} database` },
    ];
    let db: Db | undefined;
    try {
      db = await openDb(config.database);
      checks.push(...(await databaseChecks(config, db)));
    } catch (error) {
      checks.push({ check: 'database', status: 'fail', detail: (error as Error).message });
    } finally {
      await db?.close();
    }
    checks.push(await issuerCheck(config));
    print(checks as unknown as Record<string, unknown>[], options.output);
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
