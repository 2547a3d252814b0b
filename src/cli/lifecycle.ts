// Everyday lifecycle commands: `user list|lock|unlock|remove` and `app list|remove|regenerate-secret`, through the same
// service functions as the management API (same rules, same events, same consequences).
import { listApps, regenerateClientSecret, removeApp, setAppRequiresPar } from '../apps/lifecycle.ts';
import { getApp } from '../apps/service.ts';
import type { Db } from '../platform/db.ts';
import type { Page } from '../platform/search.ts';
import type { InstanceRow } from '../instance/queries.ts';
import { getOrgById } from '../orgs/service.ts';
import { listUsers } from '../users/list.ts';
import { loginName } from '../users/lookup.ts';
import { removeUser } from '../members/remove-user.ts';
import { getUserById } from '../users/service.ts';
import { changeUserState } from '../users/state.ts';
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

const ORG_HELP = '  --org ID              the organization (default: the first org, "Gatehouse")';
export const PAGE_OPTIONS = {
  ...OUTPUT_OPTION,
  org: { type: 'string' },
  limit: { type: 'string', default: '100' },
  offset: { type: 'string', default: '0' },
} as const;
export const PAGE_HELP = `  --limit N             at most N rows, 1 to 1000 (default 100)
  --offset N            skip the first N rows (default 0)
${ORG_HELP}
${OUTPUT_HELP}`;

/** --limit and --offset as the API's ListQuery takes them (management/list-query.ts: at most 1000 rows). */
export function pageOf(o: { limit: string; offset: string }): Page {
  const limit = Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1 to 1000');
  if (!/^\d{1,18}$/.test(o.offset)) throw new UsageError('--offset must be a whole number');
  return { offset: BigInt(o.offset), limit, asc: true };
}

async function orgOf(db: Db, instance: InstanceRow, org: string | undefined): Promise<string> {
  return org ? (await getOrgById(db, org)).id : instance.default_org_id;
}

export const userList: Command = {
  summary: 'list the users of an org (ListUsers)',
  help: `Usage: gatehouse user list [--user-name-prefix TEXT] [options]

Lists the users of the org, in the order they were created, with the total count:
{"totalResult","users":[{"userId","userName","loginName","type","state"}]} (with --output table, the users).

  --user-name-prefix TEXT  only user names starting with TEXT, in either case
${PAGE_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...PAGE_OPTIONS, 'user-name-prefix': { type: 'string' } });
    const page = pageOf(o);
    return withInstance(ctx, async ({ db, instance }) => {
      const prefix = o['user-name-prefix'];
      const filters = prefix
        ? [{ field: 'userName' as const, text: { value: prefix, method: 'startsWithIgnoreCase' as const } }]
        : [];
      const result = await listUsers(db, await orgOf(db, instance, o.org), filters, page);
      const users = result.rows.map((u) => ({
        userId: u.id,
        userName: u.user_name,
        loginName: loginName(u),
        type: u.type,
        state: u.state,
      }));
      print(ctx, o.output === 'table' ? users : { totalResult: result.totalResult.toString(), users }, o.output);
      return 0;
    });
  },
};

/** lock, unlock, remove: one user by ID, in whatever org it is (the CLI is the operator's, not a tenant's). */
function userCommand(
  summary: string,
  verb: string,
  change: (db: Db, ref: { orgId: string; userId: string }) => Promise<unknown>,
): Command {
  return {
    summary,
    help: `Usage: gatehouse user ${verb} --id USER_ID [--output json|table]

${summary[0]!.toUpperCase()}${summary.slice(1)}; its sessions and tokens end at once. Prints {"userId","state"}.

${OUTPUT_HELP}`,
    async run(args, ctx) {
      const o = parseOptions(args, { ...OUTPUT_OPTION, id: { type: 'string' } });
      const userId = required(o.id, 'id');
      return withInstance(ctx, async ({ db }) => {
        const user = await getUserById(db, userId);
        await change(db, { orgId: user.org_id, userId });
        const state = verb === 'remove' ? 'removed' : (await getUserById(db, userId)).state;
        print(ctx, { userId, state }, o.output);
        return 0;
      });
    },
  };
}

export const userLock = userCommand('lock a user: it cannot sign in until unlocked (LockUser)', 'lock', (db, ref) =>
  changeUserState(db, ref, 'lock', CLI_CREATOR),
);
export const userUnlock = userCommand('unlock a locked user (UnlockUser)', 'unlock', (db, ref) =>
  changeUserState(db, ref, 'unlock', CLI_CREATOR),
);
export const userRemove = userCommand(
  'remove a user with its grants, keys and memberships; its name is free again (RemoveUser)',
  'remove',
  (db, ref) => removeUser(db, ref, CLI_CREATOR),
);

const APP_OPTIONS = { ...OUTPUT_OPTION, org: { type: 'string' }, 'project-id': { type: 'string' } } as const;

export const appList: Command = {
  summary: 'list the apps of a project (ListApps)',
  help: `Usage: gatehouse app list --project-id ID [options]

Lists the project's apps in the order they were added: {"totalResult","apps":[{"appId","name","kind","clientId",
"state"}]} (with --output table, the apps). Secrets are never shown again.

  --project-id ID       the project                                          required
${PAGE_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...PAGE_OPTIONS, 'project-id': { type: 'string' } });
    const projectId = required(o['project-id'], 'project-id');
    const page = pageOf(o);
    return withInstance(ctx, async ({ db, instance }) => {
      const result = await listApps(db, await orgOf(db, instance, o.org), projectId, [], page);
      const apps = result.rows.map((a) => ({
        appId: a.id,
        name: a.name,
        kind: a.kind,
        clientId: a.client_id,
        state: a.state,
      }));
      print(ctx, o.output === 'table' ? apps : { totalResult: result.totalResult.toString(), apps }, o.output);
      return 0;
    });
  },
};

const APP_REF_HELP = `  --project-id ID       the app's project                                    required
  --id APP_ID           the app                                              required
${ORG_HELP}
${OUTPUT_HELP}`;

export const appRemove: Command = {
  summary: "remove an app: its credentials and its users' tokens fail at once (RemoveApp)",
  help: `Usage: gatehouse app remove --project-id ID --id APP_ID [options]

Removes the app with its keys; prints {"appId","removed":true}.

${APP_REF_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...APP_OPTIONS, id: { type: 'string' } });
    const ref = { projectId: required(o['project-id'], 'project-id'), appId: required(o.id, 'id') };
    return withInstance(ctx, async ({ db, instance }) => {
      await removeApp(db, { orgId: await orgOf(db, instance, o.org), ...ref }, CLI_CREATOR);
      print(ctx, { appId: ref.appId, removed: true }, o.output);
      return 0;
    });
  },
};

export const appRegenerateSecret: Command = {
  summary: 'a new client secret for an app; the old one fails at once (Regenerate*ClientSecret)',
  help: `Usage: gatehouse app regenerate-secret --project-id ID --id APP_ID [options]

Generates a new secret for an app that authenticates with one (OIDC basic/post, API basic) and prints
{"appId","clientId","clientSecret"}: the secret is shown only this once.

${APP_REF_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...APP_OPTIONS, id: { type: 'string' } });
    const ids = { projectId: required(o['project-id'], 'project-id'), appId: required(o.id, 'id') };
    return withInstance(ctx, async ({ db, secrets, instance }) => {
      const ref = { orgId: await orgOf(db, instance, o.org), ...ids };
      const app = await getApp(db, ref);
      const { clientSecret } = await regenerateClientSecret(db, secrets, ref, app.kind, CLI_CREATOR);
      print(ctx, { appId: app.id, clientId: app.client_id, clientSecret }, o.output);
      return 0;
    });
  },
};

export const appRequirePar: Command = {
  summary: "require pushed authorization requests (RFC 9126) of an OIDC app, or --off; Gatehouse's own setting",
  help: `Usage: gatehouse app require-par --project-id ID --id APP_ID [--off] [options]

From now on the app's authorization requests must be pushed first (POST /oauth/v2/par); a plain one is refused
with invalid_request. --off allows plain ones again. ZITADEL's app API has no such field: the setting is kept by
Gatehouse, and UpdateOIDCAppConfig leaves it unchanged. Prints {"appId","requirePar"}.

  --off                          allow plain authorization requests again
${APP_REF_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, { ...APP_OPTIONS, id: { type: 'string' }, off: { type: 'boolean', default: false } });
    const ref = { projectId: required(o['project-id'], 'project-id'), appId: required(o.id, 'id') };
    return withInstance(ctx, async ({ db, instance }) => {
      await setAppRequiresPar(db, { orgId: await orgOf(db, instance, o.org), ...ref }, !o.off, CLI_CREATOR);
      print(ctx, { appId: ref.appId, requirePar: !o.off }, o.output);
      return 0;
    });
  },
};
