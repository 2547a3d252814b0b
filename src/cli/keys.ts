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
  async run(args, config) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const secrets = createSecretBox(resolveMasterKey(config));
    const rotated = await withDb(config, (db) => rotateKeys(db, secrets, config.keys.activationDelay));
    print(rotated, options.output);
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
  async run(args, config) {
    const options = parseOptions(args, OUTPUT_OPTION);
    const keys = await withDb(config, (db) => listKeys(db, Math.max(config.ttl.accessToken, config.ttl.idToken)));
    print(keys as unknown as Record<string, unknown>[], options.output);
    return 0;
  },
};
