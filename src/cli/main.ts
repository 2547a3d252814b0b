#!/usr/bin/env node
// `gatehouse <command>` (also `npm run cli -- <command>`): operator tasks that talk to the database directly.
// Exit codes: 0 success, 1 the task failed, 2 usage or configuration error.
import { loadConfig, ConfigError } from '../config.ts';
import { COMMANDS, UsageError, usage } from './commands.ts';

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`gatehouse: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(args, loadConfig());
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`gatehouse ${name}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`gatehouse ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
