// `user pat add|list|remove`: a machine user's personal access tokens, through the same service functions as the
// management API (same rules, same events). The token is printed once, by `add`; nothing can show it again.
import type { Db } from '../platform/db.ts';
import { PERSONAL_ACCESS_TOKEN_SCOPES } from '../oidc/scopes.ts';
import { getUserById, type UserRef } from '../users/service.ts';
import {
  addPersonalAccessToken,
  listPersonalAccessTokens,
  removePersonalAccessToken,
} from '../users/personal-access-tokens.ts';
import {
  CLI_CREATOR,
  OUTPUT_HELP,
  OUTPUT_OPTION,
  parseOptions,
  print,
  required,
  UsageError,
  withInstance,
  type Command,
} from './command.ts';
import { pageOf } from './lifecycle.ts';

const USER_HELP = '  --user-id ID          the machine user (in whatever org it is)              required';

/** The user in its own org: the CLI is the operator's, not a tenant's. */
async function userRef(db: Db, userId: string): Promise<UserRef> {
  return { orgId: (await getUserById(db, userId)).org_id, userId };
}

export const patAdd: Command = {
  summary: 'a personal access token for a machine user, printed once (AddPersonalAccessToken)',
  help: `Usage: gatehouse user pat add --user-id ID [--expiration-date DATE] [--output json|table]

Makes a bearer token that acts as the machine user at the management API, userinfo and introspection, and prints
{"tokenId","token","expirationDate"}: the token is shown only this once (only its hash is stored).

${USER_HELP}
  --expiration-date DATE  when it stops working, e.g. 2027-01-31 or 2027-01-31T12:00:00Z
                          (default: never, which ZITADEL writes as 9999-12-31)
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, {
      ...OUTPUT_OPTION,
      'user-id': { type: 'string' },
      'expiration-date': { type: 'string' },
    });
    const userId = required(o['user-id'], 'user-id');
    const date = o['expiration-date'];
    const expiresAt = date === undefined ? undefined : new Date(date);
    if (expiresAt && Number.isNaN(expiresAt.getTime()))
      throw new UsageError('--expiration-date must be a date, e.g. 2027-01-31T12:00:00Z');
    return withInstance(ctx, async ({ db }) => {
      const ref = await userRef(db, userId);
      const scopes = PERSONAL_ACCESS_TOKEN_SCOPES;
      const added = await addPersonalAccessToken(db, ref, { expiresAt, scopes }, CLI_CREATOR);
      const expirationDate = added.expiresAt.toISOString();
      print(ctx, { tokenId: added.tokenId, token: added.token, expirationDate }, o.output);
      return 0;
    });
  },
};

export const patList: Command = {
  summary: "list a machine user's personal access tokens, never their values (ListPersonalAccessTokens)",
  help: `Usage: gatehouse user pat list --user-id ID [options]

Lists the user's tokens in the order they were made: {"totalResult","tokens":[{"tokenId","createdAt",
"expirationDate"}]} (with --output table, the tokens).

${USER_HELP}
  --limit N             at most N rows, 1 to 1000 (default 100)
  --offset N            skip the first N rows (default 0)
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, {
      ...OUTPUT_OPTION,
      'user-id': { type: 'string' },
      limit: { type: 'string', default: '100' },
      offset: { type: 'string', default: '0' },
    });
    const userId = required(o['user-id'], 'user-id');
    const page = pageOf(o);
    return withInstance(ctx, async ({ db }) => {
      const result = await listPersonalAccessTokens(db, await userRef(db, userId), page);
      const tokens = result.rows.map((t) => ({
        tokenId: t.id,
        createdAt: t.created_at.toISOString(),
        expirationDate: t.expires_at.toISOString(),
      }));
      print(ctx, o.output === 'table' ? tokens : { totalResult: result.totalResult.toString(), tokens }, o.output);
      return 0;
    });
  },
};

export const patRemove: Command = {
  summary: 'remove a personal access token: the next request with it fails (RemovePersonalAccessToken)',
  help: `Usage: gatehouse user pat remove --user-id ID --id TOKEN_ID [--output json|table]

Removes the token; prints {"tokenId","removed":true}.

${USER_HELP}
  --id TOKEN_ID         the token's ID (from add or list)                    required
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...OUTPUT_OPTION, 'user-id': { type: 'string' }, id: { type: 'string' } });
    const userId = required(o['user-id'], 'user-id');
    const tokenId = required(o.id, 'id');
    return withInstance(ctx, async ({ db }) => {
      await removePersonalAccessToken(db, await userRef(db, userId), tokenId, CLI_CREATOR);
      print(ctx, { tokenId, removed: true }, o.output);
      return 0;
    });
  },
};
