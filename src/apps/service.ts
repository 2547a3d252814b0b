// Applications of a project: OIDC apps and API apps are OAuth clients; their secrets are generated here, returned once
// and stored as keyed hashes (never readable again); private_key_jwt apps get public keys.
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { generateSecret } from '../platform/secrets.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { KEY_NO_EXPIRY, newRsaKeyPair } from '../platform/key-pairs.ts';
import { failedPrecondition, notFound, invalidArgument } from '../platform/errors.ts';
import { getProject } from '../projects/service.ts';
import {
  addApiAppSchema,
  addOidcAppSchema,
  checkOidcConfig,
  oidcComplianceProblems,
  oidcConfigSchema,
  parseAppInput,
  type OidcConfigInput,
} from './schema.ts';
import {
  findActiveAppKeys,
  findAppByClientId,
  findAppById,
  insertApp,
  insertAppKey,
  updateAppConfig,
  type AppRow,
} from './queries.ts';

export interface AddedApp {
  appId: string;
  clientId: string;
  clientSecret?: string;
  complianceProblems?: string[];
  details: Details;
}

/** `orgId`: the org in context; the project must be one of its own, as in ZITADEL's management API. */
export async function addOidcApp(
  db: Db,
  secrets: SecretBox,
  orgId: string,
  input: OidcConfigInput & { projectId: string; name: string },
  creator: string,
): Promise<AddedApp> {
  const project = await getProject(db, orgId, input.projectId);
  const app = parseAppInput(addOidcAppSchema, input, 'AddOIDCAppRequest');
  checkOidcConfig(app, 'AddOIDCAppRequest');
  const appId = newId();
  const clientId = `${appId}@${project.id}`;
  const clientSecret = app.authMethod === 'basic' || app.authMethod === 'post' ? generateSecret() : undefined;
  return db.tx(async (tx) => {
    const { projectId, name, ...config } = app;
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: projectId,
      eventType: EVENT.project.appAdded,
      payload: { appId, name, kind: 'oidc', clientId, ...config },
      resourceOwner: project.org_id,
      creator,
    });
    await insertApp(tx, {
      id: appId,
      projectId,
      name,
      kind: 'oidc',
      clientId,
      secretHash: clientSecret ? secrets.hashSecret(clientSecret) : null,
      sequence: event.sequence,
      ...config,
    });
    return {
      appId,
      clientId,
      ...(clientSecret ? { clientSecret } : {}),
      complianceProblems: oidcComplianceProblems(app),
      details: createdDetails(event),
    };
  });
}

export async function addApiApp(
  db: Db,
  secrets: SecretBox,
  orgId: string,
  input: { projectId: string; name: string; authMethod?: 'basic' | 'private_key_jwt' },
  creator: string,
): Promise<AddedApp> {
  const project = await getProject(db, orgId, input.projectId);
  const app = parseAppInput(addApiAppSchema, input, 'AddAPIAppRequest');
  const appId = newId();
  const clientId = `${appId}@${project.id}`;
  const clientSecret = app.authMethod === 'basic' ? generateSecret() : undefined;
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: app.projectId,
      eventType: EVENT.project.appAdded,
      payload: { appId, name: app.name, kind: 'api', clientId, authMethod: app.authMethod },
      resourceOwner: project.org_id,
      creator,
    });
    // An API app only authenticates (introspection); it has no flows of its own.
    await insertApp(tx, {
      id: appId,
      projectId: app.projectId,
      name: app.name,
      kind: 'api',
      clientId,
      secretHash: clientSecret ? secrets.hashSecret(clientSecret) : null,
      authMethod: app.authMethod,
      appType: 'web',
      redirectUris: [],
      postLogoutRedirectUris: [],
      responseTypes: [],
      grantTypes: [],
      accessTokenType: 'opaque',
      idTokenUserinfoAssertion: false,
      idTokenRoleAssertion: false,
      accessTokenRoleAssertion: false,
      devMode: false,
      sequence: event.sequence,
    });
    return { appId, clientId, ...(clientSecret ? { clientSecret } : {}), details: createdDetails(event) };
  });
}

/** Replaces the OIDC configuration; a change to basic/post from another method generates a new secret. */
export async function updateOidcAppConfig(
  db: Db,
  secrets: SecretBox,
  ref: AppRef,
  input: OidcConfigInput,
  creator: string,
): Promise<{ clientSecret?: string; details: Details }> {
  const app = await getApp(db, ref);
  const appId = app.id;
  const config = parseAppInput(oidcConfigSchema, input, 'UpdateOIDCAppConfigRequest');
  checkOidcConfig(config, 'UpdateOIDCAppConfigRequest');
  if (app.kind !== 'oidc') throw invalidArgument('App is not an OIDC app', 'COMMAND-GBr34'); // ChangeOIDCApplication
  if (sameAsStored(app, config)) throw failedPrecondition('No changes', 'COMMAND-1m88i');
  const needsSecret = config.authMethod === 'basic' || config.authMethod === 'post';
  const clientSecret = needsSecret && !app.secret_hash ? generateSecret() : undefined;
  const secretHash = needsSecret ? (clientSecret ? secrets.hashSecret(clientSecret) : app.secret_hash) : null;
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: app.project_id,
      eventType: EVENT.project.oidcConfigChanged,
      payload: { appId, ...config },
      resourceOwner: app.org_id,
      creator,
    });
    await updateAppConfig(tx, appId, { ...config, secretHash, sequence: event.sequence, changedAt: event.createdAt });
    return { ...(clientSecret ? { clientSecret } : {}), details: changedDetails(event) };
  });
}

/** Whether every configuration field equals the app's column of the same name (redirectUris: redirect_uris). */
function sameAsStored(app: AppRow, config: Record<string, unknown>): boolean {
  const stored = app as unknown as Record<string, unknown>;
  return Object.entries(config).every(([key, value]) => {
    const column = stored[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
    return JSON.stringify(column) === JSON.stringify(value);
  });
}

/** ZITADEL's key file for private_key_jwt apps. */
export interface AppKeyFile {
  type: 'application';
  keyId: string;
  key: string;
  appId: string;
  clientId: string;
  expirationDate: string;
}

export async function addAppKey(
  db: Db,
  ref: AppRef,
  expiresAt: Date = KEY_NO_EXPIRY,
  creator: string,
): Promise<{ keyId: string; keyFile: AppKeyFile; details: Details }> {
  const app = await getApp(db, ref);
  const appId = app.id;
  // a state of the app, not malformed input: ZITADEL's FAILED_PRECONDITION (command/project_application_key.go
  // AddApplicationKey, COMMAND-Dff54)
  if (app.auth_method !== 'private_key_jwt')
    throw failedPrecondition('App does not use private_key_jwt', 'COMMAND-Dff54');
  if (!(expiresAt.getTime() > Date.now()))
    throw invalidArgument('invalid AddAppKeyRequest.ExpirationDate: must be in the future', 'APP-Fsh3e');
  const { keyId, publicJwk, privateKeyPem } = await newRsaKeyPair();
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'project',
      aggregateId: app.project_id,
      eventType: EVENT.project.appKeyAdded,
      payload: { appId, keyId, expiresAt },
      resourceOwner: app.org_id,
      creator,
    });
    await insertAppKey(tx, { id: keyId, appId, publicJwk, expiresAt });
    return {
      keyId,
      keyFile: {
        type: 'application',
        keyId,
        key: privateKeyPem,
        appId,
        clientId: app.client_id,
        expirationDate: expiresAt.toISOString(),
      },
      details: createdDetails(event),
    };
  });
}

/** An app as the management API names it: by its org (in context), project and ID. */
export interface AppRef {
  orgId: string;
  projectId: string;
  appId: string;
}

/** The app, which must belong to the org and project named: any other is answered like one that does not exist,
 *  so ids of other orgs cannot be probed. */
export async function getApp(db: Queryable, ref: AppRef): Promise<AppRow> {
  const app = await findAppById(db, ref.appId);
  if (app?.org_id !== ref.orgId || app.project_id !== ref.projectId) throw notFound('App not found', 'APP-D5gs2');
  return app;
}

/** An active app with its usable public keys, for the OIDC client lookup. */
export async function findClientApp(
  db: Db,
  clientId: string,
): Promise<{ app: AppRow; keys: Array<Record<string, unknown>> } | undefined> {
  const app = await findAppByClientId(db, clientId);
  if (app?.state !== 'active' || app.project_state !== 'active') return undefined;
  return { app, keys: app.auth_method === 'private_key_jwt' ? await findActiveAppKeys(db, app.id) : [] };
}
