#!/usr/bin/env node
// `gatehouse <command>` (also `npm run cli -- <command>`): operator tasks that talk to the database directly.
// Exit codes: 0 success, 1 the task failed, 2 usage, configuration or input error.
import { loadConfig, ConfigError } from '../config.ts';
import { AppError, Code } from '../platform/errors.ts';
import { findCommand, UsageError, usage } from './commands.ts';

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (!first || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(usage());
    return first ? 0 : 2;
  }
  const found = findCommand(argv);
  if (!found) {
    process.stderr.write(`gatehouse: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${usage()}`);
    return 2;
  }
  const { name, command, args } = found;
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(args, loadConfig());
  } catch (error) {
    const input =
      error instanceof ConfigError ||
      error instanceof UsageError ||
      (error instanceof AppError && error.code === Code.InvalidArgument);
    const message = error instanceof AppError ? error.publicMessage : (error as Error).message;
    process.stderr.write(`gatehouse ${name}: ${message}\n`);
    return input ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
