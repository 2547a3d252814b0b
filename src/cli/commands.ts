// The CLI's commands by name. Each has its own help text and returns an exit code (0 done, 1 failed, 2 usage).
import { migrate } from '../platform/migrate.ts';
import { OUTPUT_HELP, OUTPUT_OPTION, parseOptions, print, withDb, type Command } from './command.ts';
import { keysList, keysRotate } from './keys.ts';
import { adminCreate, serviceUserCreate, userImport } from './provision.ts';
import { appCreate } from './app-create.ts';
import { projectList } from './projects.ts';
import { adminToken } from './admin-token.ts';
import { doctor } from './doctor.ts';
import {
  appList,
  appRegenerateSecret,
  appRemove,
  appRequirePar,
  userList,
  userLock,
  userRemove,
  userUnlock,
} from './lifecycle.ts';
import { grantAdd, grantList, grantRemove, roleAdd, roleList, roleRemove } from './roles.ts';
import { idpLinkList, idpList } from './idps.ts';
import { patAdd, patList, patRemove } from './pats.ts';

export { UsageError, type Command } from './command.ts';

const migrateCommand: Command = {
  summary: 'apply pending database migrations',
  help: `Usage: gatehouse migrate [--output json|table]

Applies the pending migrations of migrations/ to the configured database (DATABASE_URL, or the
embedded database under GATEHOUSE_DATA_DIR) and prints the names applied as {"applied": [...]}.

${OUTPUT_HELP}`,
  async run(args, ctx) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const applied = await withDb(ctx, (db) => migrate(db));
    print(ctx, { applied }, options.output);
    return 0;
  },
};

export const COMMANDS: Record<string, Command> = {
  migrate: migrateCommand,
  'keys rotate': keysRotate,
  'keys list': keysList,
  'admin create': adminCreate,
  'admin token': adminToken,
  'project list': projectList,
  'app create': appCreate,
  'app require-par': appRequirePar,
  'service-user create': serviceUserCreate,
  'user import': userImport,
  'user list': userList,
  'user lock': userLock,
  'user unlock': userUnlock,
  'user remove': userRemove,
  'user pat add': patAdd,
  'user pat list': patList,
  'user pat remove': patRemove,
  'app list': appList,
  'app remove': appRemove,
  'app regenerate-secret': appRegenerateSecret,
  'role add': roleAdd,
  'role list': roleList,
  'role remove': roleRemove,
  'grant add': grantAdd,
  'grant list': grantList,
  'grant remove': grantRemove,
  'idp list': idpList,
  'idp link list': idpLinkList,
  doctor,
};

/** The command named by the first one, two or three arguments (`keys:rotate` is `keys rotate`) and its arguments. */
export function findCommand(argv: string[]): { name: string; command: Command; args: string[] } | undefined {
  const [first = ''] = argv;
  const words = first.includes(':') ? [...first.split(':'), ...argv.slice(1)] : argv;
  const joined = words.length - argv.length; // the words a colon form holds in one argument, less one
  for (const n of [3, 2, 1]) {
    const name = words.slice(0, n).join(' ');
    if (n > joined && words.length >= n && COMMANDS[name])
      return { name, command: COMMANDS[name], args: argv.slice(n - joined) };
  }
  return undefined;
}

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return (
    `Usage: gatehouse <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "gatehouse <command> ` +
    `--help" for a command's options.\n`
  );
}
