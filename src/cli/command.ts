// What a CLI command is, and what commands share: strict option parsing (a usage error is exit code 2), JSON or
// table output, and the database opened the way the server opens it (migrations and the first start included, so
// provisioning works on a fresh database before the server has ever run).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import { openDb, type Db } from '../platform/db.ts';
import { migrate } from '../platform/migrate.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox, type SecretBox } from '../platform/secrets.ts';
import { createLogger } from '../platform/logger.ts';
import { bootstrap } from '../instance/bootstrap.ts';
import type { InstanceRow } from '../instance/queries.ts';
import { MAX_LIMIT } from '../management/list-query.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Command {
  summary: string;
  help: string;
  run(args: string[], config: Config): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

export const OUTPUT_OPTION = { output: { type: 'string', default: 'json' } } as const satisfies Options;
export const OUTPUT_HELP = '  --output json|table   output format (default json)';

/** What a list command without --limit prints: the first page at the largest size the API allows. */
export const LIST_PAGE = { offset: 0n, limit: MAX_LIMIT, asc: true };

/** Parses options strictly; unknown options, positionals and missing values are usage errors. */
export function parseOptions<O extends Options>(args: string[], options: O) {
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    const output = (values as { output?: string }).output;
    if (output !== undefined && output !== 'json' && output !== 'table')
      throw new UsageError('--output must be json or table');
    return values;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

export function required(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${option} is required`);
  return value;
}

/** Prints a record or a list of records as JSON (one document) or as an aligned table. */
export function print(value: Record<string, unknown> | Record<string, unknown>[], output: string | undefined): void {
  if (output !== 'table') {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const cell = (v: unknown) =>
    v instanceof Date ? v.toISOString() : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '');
  const rows = Array.isArray(value)
    ? [Object.keys(value[0] ?? {}), ...value.map((r) => Object.values(r).map(cell))]
    : Object.entries(value).map(([k, v]) => [k, cell(v)]);
  const widths = rows.reduce<number[]>((w, r) => r.map((c, i) => Math.max(w[i] ?? 0, c.length)), []);
  process.stdout.write(
    `${rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n')}\n`,
  );
}

export async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(config.database, createLogger(config.logLevel, process.stderr));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export interface InstanceContext {
  db: Db;
  secrets: SecretBox;
  instance: InstanceRow;
}

/** The database as the server prepares it: migrated, with the instance of the first start. */
export async function withInstance<T>(config: Config, fn: (ctx: InstanceContext) => Promise<T>): Promise<T> {
  const secrets = createSecretBox(resolveMasterKey(config));
  return withDb(config, async (db) => {
    await migrate(db);
    // first-start messages (a generated admin password) go to stderr, never into the command's output
    const { instance } = await bootstrap(db, config, createLogger(config.logLevel, process.stderr));
    return fn({ db, secrets, instance });
  });
}

/** Reads a secret from standard input (first line), so it stays out of the process list and shell history. */
export async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--password-stdin needs the password on standard input');
  let data = '';
  for await (const chunk of process.stdin) {
    data += String(chunk);
    if (data.includes('\n') || data.length > 4096) break;
  }
  return data.split(/\r?\n/)[0]!;
}

/** CLI changes are attributed to this creator in the event log. */
export const CLI_CREATOR = 'CLI';
