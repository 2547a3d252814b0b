// `gatehouse keys rotate` and `gatehouse keys list`: the token signing keys (src/oidc/keys.ts).
import { resolveMasterKey } from '../platform/master-key.ts';
import { createSecretBox } from '../platform/secrets.ts';
import { listKeys, rotateKeys } from '../oidc/keys.ts';
import { OUTPUT_HELP, OUTPUT_OPTION, parseOptions, print, withDb, type Command } from './command.ts';

export const keysRotate: Command = {
  summary: 'publish a new token signing key (it signs after GATEHOUSE_KEY_ACTIVATION_DELAY)',
  help: `Usage: gatehouse keys rotate [--output json|table]

Adds a new signing key. It is published in the JWKS at once and starts signing after
GATEHOUSE_KEY_ACTIVATION_DELAY seconds; the previous key stays published until its tokens have expired.
Running instances pick the change up without restart. Prints {"kid","activatesAt"}.

${OUTPUT_HELP}`,
  async run(args, ctx) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const secrets = createSecretBox(resolveMasterKey(ctx.config));
    const rotated = await withDb(ctx, (db) => rotateKeys(db, secrets, ctx.config.keys.activationDelay));
    print(ctx, rotated, options.output);
    return 0;
  },
};

export const keysList: Command = {
  summary: 'list the token signing keys and their state',
  help: `Usage: gatehouse keys list [--output json|table]

Lists every signing key, newest first, with its state: signing (signs new tokens), next (published, signs
from activatesAt), published (retired, still in the JWKS until its tokens have expired), unpublished.
Private keys are never printed.

${OUTPUT_HELP}`,
  async run(args, ctx) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const keys = await withDb(ctx, (db) => listKeys(db, Math.max(ctx.config.ttl.accessToken, ctx.config.ttl.idToken)));
    print(ctx, keys as unknown as Record<string, unknown>[], options.output);
    return 0;
  },
};
