// An app's life after AddOIDCApp / AddAPIApp: list, rename, API config, deactivate / reactivate, remove, new client
// secrets, its keys. Each change is one transaction with its event. A deactivated or removed app's credentials fail on
// the next request, and its users' tokens with them: every client lookup and token check requires an active app that
// exists (apps/service.ts findClientApp, oidc/queries.ts), so no hot path needs a query of its own. A removed app takes
// its keys and consents (ON DELETE CASCADE).
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { generateSecret } from '../platform/secrets.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument, notFound } from '../platform/errors.ts';
import { name200, parseInput } from '../platform/input.ts';
import {
  Conditions,
  creationOrder,
  listPage,
  type ListResult,
  type Page,
  type TextFilter,
} from '../platform/search.ts';
import { getProject } from '../projects/service.ts';
import { z } from 'zod';
import {
  APP_COLUMNS,
  APPS_FROM,
  deleteApp,
  deleteAppKey,
  lockApp,
  updateAppColumns,
  type AppColumns,
  type AppRow,
  type KeyRow,
} from './queries.ts';
import { getApp, type AppRef } from './service.ts';

interface AppChange {
  eventType: EventType<'project'>;
  payload?: Record<string, unknown>;
  /** What to store; none for a removal (`remove`). */
  columns?: AppColumns;
  remove?: (tx: Queryable) => Promise<void>;
}

/** The app of the org and project in context, locked; `change` decides what to write (or throws). */
async function changeApp(db: Db, ref: AppRef, creator: string, change: (app: AppRow) => AppChange): Promise<Details> {
  return db.tx(async (tx) => {
    await lockApp(tx, ref.appId);
    const app = await getApp(tx, ref);
    const c = change(app);
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: app.project_id,
      eventType: c.eventType,
      payload: { appId: app.id, ...c.payload },
      resourceOwner: app.org_id,
      creator,
    });
    if (c.columns) await updateAppColumns(tx, app.id, c.columns, event.sequence, event.createdAt);
    await c.remove?.(tx);
    return changedDetails(event);
  });
}

const updateAppSchema = z.object({ name: name200 });

export function updateApp(db: Db, ref: AppRef, name: string, creator: string): Promise<Details> {
  const input = parseInput(updateAppSchema, { name }, 'UpdateAppRequest', 'APP-Name');
  return changeApp(db, ref, creator, (app) => {
    if (app.name === input.name) throw failedPrecondition('No changes', 'COMMAND-2m8vx');
    return { eventType: EVENT.project.appChanged, columns: { name: input.name }, payload: input };
  });
}

export function setAppActive(db: Db, ref: AppRef, active: boolean, creator: string): Promise<Details> {
  return changeApp(db, ref, creator, (app) => {
    if (active && app.state === 'active') throw failedPrecondition('App is not inactive', 'COMMAND-1n8cM');
    if (!active && app.state !== 'active') throw failedPrecondition('App is not active', 'COMMAND-dsh35');
    return {
      eventType: active ? EVENT.project.appReactivated : EVENT.project.appDeactivated,
      columns: { state: active ? 'active' : 'inactive' },
    };
  });
}

export function removeApp(db: Db, ref: AppRef, creator: string): Promise<Details> {
  return changeApp(db, ref, creator, (app) => ({
    eventType: EVENT.project.appRemoved,
    payload: { name: app.name, clientId: app.client_id },
    remove: (tx) => deleteApp(tx, app.id),
  }));
}

/** A new client secret for an app that authenticates with one (OIDC basic/post, API basic); the old one stops working
 *  at once. Returned once, stored as a keyed hash (never readable again). */
export async function regenerateClientSecret(
  db: Db,
  secrets: SecretBox,
  ref: AppRef,
  kind: AppRow['kind'],
  creator: string,
): Promise<{ clientSecret: string; details: Details }> {
  const clientSecret = generateSecret();
  const details = await changeApp(db, ref, creator, (app) => {
    // the wrong kind of app is INVALID_ARGUMENT in ZITADEL (command/project_application_oidc.go
    // ChangeOIDCApplicationSecret COMMAND-Ghrh3, project_application_api.go ChangeAPIApplicationSecret COMMAND-aeH4)
    if (app.kind !== kind)
      throw invalidArgument(
        `App is not an ${kind.toUpperCase()} app`,
        kind === 'oidc' ? 'COMMAND-Ghrh3' : 'COMMAND-aeH4',
      );
    if (!app.secret_hash) throw failedPrecondition('App has no client secret', 'APP-NoSecr'); // Gatehouse's own check
    return {
      eventType: kind === 'oidc' ? EVENT.project.oidcSecretChanged : EVENT.project.apiSecretChanged,
      columns: { secret_hash: secrets.hashSecret(clientSecret) },
    };
  });
  return { clientSecret, details };
}

/** UpdateAPIAppConfig: basic (a secret, RegenerateAPIClientSecret hands out one) or private_key_jwt (no secret). */
export function updateApiAppConfig(
  db: Db,
  secrets: SecretBox,
  ref: AppRef,
  authMethod: 'basic' | 'private_key_jwt',
  creator: string,
): Promise<Details> {
  return changeApp(db, ref, creator, (app) => {
    // command/project_application_api.go ChangeAPIApplication
    if (app.kind !== 'api') throw invalidArgument('App is not an API app', 'COMMAND-Gnwt3');
    if (app.auth_method === authMethod) throw failedPrecondition('No changes', 'COMMAND-2m8vx');
    // apps_secret_check: a basic app has a secret; nobody learns this one before RegenerateAPIClientSecret
    const secretHash = authMethod === 'basic' ? secrets.hashSecret(generateSecret()) : null;
    return {
      eventType: EVENT.project.apiConfigChanged,
      columns: { auth_method: authMethod, secret_hash: secretHash },
      payload: { authMethod },
    };
  });
}

/** Whether the OIDC app must push its authorization requests (RFC 9126 §6): Gatehouse's own setting, outside ZITADEL's
 *  app API (which has none), so UpdateOIDCAppConfig leaves it as it is. Saved as an OIDC config change. */
export function setAppRequiresPar(db: Db, ref: AppRef, required: boolean, creator: string): Promise<Details> {
  return changeApp(db, ref, creator, (app) => {
    if (app.kind !== 'oidc') throw invalidArgument('App is not an OIDC app', 'COMMAND-GBr34');
    if (app.require_par === required) throw failedPrecondition('No changes', 'COMMAND-1m88i');
    return {
      eventType: EVENT.project.oidcConfigChanged,
      columns: { require_par: required },
      payload: { requirePar: required },
    };
  });
}

export function removeAppKey(db: Db, ref: AppRef, keyId: string, creator: string): Promise<Details> {
  return changeApp(db, ref, creator, (app) => ({
    eventType: EVENT.project.appKeyRemoved,
    payload: { keyId },
    remove: async (tx) => {
      if (!(await deleteAppKey(tx, app.id, keyId))) throw notFound('Key not found', 'COMMAND-4m77G');
    },
  }));
}

export async function listAppKeys(db: Db, ref: AppRef, page: Page): Promise<ListResult<KeyRow>> {
  const app = await getApp(db, ref);
  return listPage<KeyRow>(
    db,
    {
      select: 'id, expires_at, created_at',
      from: 'app_keys',
      where: new Conditions().add('app_id = ?', app.id),
      orderBy: ['created_at', 'id'],
    },
    creationOrder(page),
  );
}

/** The apps of a project of the org in context (apps_project_idx), in the order they were added. The list keeps
 *  to the org itself, so the project is looked up only when it found none (a project without apps, or another
 *  org's, which is "not found"): one statement where it was two, for each project of the console's overview. */
export async function listApps(
  db: Db,
  orgId: string,
  projectId: string,
  nameFilters: readonly TextFilter[],
  page: Page,
): Promise<ListResult<AppRow>> {
  const where = new Conditions().add('a.project_id = ?', projectId).add('p.org_id = ?', orgId);
  for (const f of nameFilters) where.text('a.name', f);
  const list = await listPage<AppRow>(
    db,
    {
      select: APP_COLUMNS,
      from: APPS_FROM,
      where,
      orderBy: ['a.id'],
    },
    creationOrder(page),
  );
  if (list.totalResult === 0n) await getProject(db, orgId, projectId);
  return list;
}
