#!/usr/bin/env node
// `gatehouse <command>` (also `npm run cli -- <command>`): operator tasks on the database. With PostgreSQL the command
// opens the shared database; with the embedded one it opens the data directory, or, while a server holds it, hands
// the command to that server (handoff-client.ts), which runs it the same way.
// Exit codes: 0 success, 1 the task failed, 2 usage, configuration or input error.
import { loadConfig } from '../config.ts';
import { findCommand, usage } from './commands.ts';
import { execute, openedHere, processIo } from './command.ts';
import { serverHolding } from './handoff-client.ts';

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
  return execute(name, processIo, async () => {
    const config = loadConfig();
    const server = await serverHolding(config);
    if (server) return server.run(name, args, config, processIo);
    return command.run(args, { config, io: processIo, database: openedHere(config) });
  });
}

process.exitCode = await main(process.argv.slice(2));
