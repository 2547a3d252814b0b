// What a CLI command is, and what commands share: strict option parsing (a usage error is exit code 2), JSON or
// table output, the exit code of a failure, and the database: opened the way the server opens it (migrations and
// the first start included, so provisioning works on a fresh database before the server has ever run), or lent by
// the running server that holds the embedded one (handoff-server.ts).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, type Config } from '../config.ts';
import { AppError, Code } from '../platform/errors.ts';
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
  run(args: string[], ctx: CommandContext): Promise<number>;
}

/** What a command runs with: the operator's configuration, its terminal, and the database. */
export interface CommandContext {
  readonly config: Config;
  readonly io: CommandIo;
  readonly database: DatabaseSource;
}

/** The command's standard output and error, and the first line of its standard input (--password-stdin). */
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdinLine(): Promise<string>;
}

/** Where a command's database comes from: opened by the command's own process, or lent by the running server. */
export interface DatabaseSource {
  /** Set when the running server lends its database: that server's process ID. */
  readonly serverPid?: number;
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  withInstance<T>(fn: (ctx: InstanceContext) => Promise<T>): Promise<T>;
}

/** The process's own terminal. */
export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdinLine: readStdinLine,
};

/** Runs a command's work and answers its exit code: 0 done; a failure is one line on standard error, exit code 2 for
 *  a usage, configuration or input error and 1 for anything else. */
export async function execute(name: string, io: CommandIo, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    const input =
      error instanceof ConfigError ||
      error instanceof UsageError ||
      (error instanceof AppError && error.code === Code.InvalidArgument);
    const message = error instanceof AppError ? error.publicMessage : (error as Error).message;
    io.stderr(`gatehouse ${name}: ${message}\n`);
    return input ? 2 : 1;
  }
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
export function print(
  ctx: CommandContext,
  value: Record<string, unknown> | Record<string, unknown>[],
  output: string | undefined,
): void {
  if (output !== 'table') {
    ctx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const cell = (v: unknown) =>
    v instanceof Date ? v.toISOString() : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '');
  const rows = Array.isArray(value)
    ? [Object.keys(value[0] ?? {}), ...value.map((r) => Object.values(r).map(cell))]
    : Object.entries(value).map(([k, v]) => [k, cell(v)]);
  const widths = rows.reduce<number[]>((w, r) => r.map((c, i) => Math.max(w[i] ?? 0, c.length)), []);
  ctx.io.stdout(
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

export interface InstanceContext {
  db: Db;
  secrets: SecretBox;
  instance: InstanceRow;
}

/** The database as it is: for commands that work on any database (migrate, keys, doctor). */
export const withDb = <T>(ctx: CommandContext, fn: (db: Db) => Promise<T>): Promise<T> => ctx.database.withDb(fn);

/** The database as the server prepares it: migrated, with the instance of the first start. */
export const withInstance = <T>(ctx: CommandContext, fn: (ctx: InstanceContext) => Promise<T>): Promise<T> =>
  ctx.database.withInstance(fn);

/** The database opened by this process for one command, and closed after it. */
export function openedHere(config: Config): DatabaseSource {
  // log lines (first-start messages: a generated admin password) go to stderr, never into the command's output
  const log = () => createLogger(config.logLevel, process.stderr);
  async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = await openDb(config.database, log());
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }
  return {
    withDb,
    async withInstance(fn) {
      const secrets = createSecretBox(resolveMasterKey(config));
      return withDb(async (db) => {
        await migrate(db);
        const { instance } = await bootstrap(db, config, log());
        return fn({ db, secrets, instance });
      });
    },
  };
}

/** Reads a secret from standard input (first line), so it stays out of the process list and shell history. */
async function readStdinLine(): Promise<string> {
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
