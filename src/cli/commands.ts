// The CLI's commands. Each has its own help text and returns an exit code.
import type { Config } from '../config.ts';
import { openDb } from '../platform/db.ts';
import { migrate } from '../platform/migrate.ts';
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox } from '../platform/secrets.ts';
import { rotateKeys } from '../oidc/keys.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Command {
  summary: string;
  help: string;
  run(args: string[], config: Config): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  migrate: {
    summary: 'apply pending database migrations',
    help: 'Usage: gatehouse migrate\n\nApplies the pending migrations of migrations/ to the configured database (DATABASE_URL, or the\nembedded database under GATEHOUSE_DATA_DIR) and prints the names applied as JSON.',
    async run(args, config) {
      if (args.length) throw new UsageError(`unexpected argument "${args[0]}"`);
      const db = await openDb(config.database);
      try {
        const applied = await migrate(db);
        process.stdout.write(`${JSON.stringify({ applied })}\n`);
        return 0;
      } finally {
        await db.close();
      }
    },
  },
  'keys:rotate': {
    summary: 'publish a new token signing key (it signs after GATEHOUSE_KEY_ACTIVATION_DELAY)',
    help: 'Usage: gatehouse keys:rotate\n\nAdds a new signing key. It is published in the JWKS at once and starts signing after\nGATEHOUSE_KEY_ACTIVATION_DELAY seconds; the previous key stays published until its tokens have expired.\nRunning instances pick the change up without restart. Prints {"kid","activatesAt"} as JSON.',
    async run(args, config) {
      if (args.length) throw new UsageError(`unexpected argument "${args[0]}"`);
      const db = await openDb(config.database);
      try {
        const rotated = await rotateKeys(db, createSecretBox(resolveMasterKey(config)), config.keys.activationDelay);
        process.stdout.write(`${JSON.stringify(rotated)}\n`);
        return 0;
      } finally {
        await db.close();
      }
    },
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return `Usage: gatehouse <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "gatehouse <command> --help" for a command's options.\n`;
}
