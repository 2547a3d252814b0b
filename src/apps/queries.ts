import type { Queryable } from '../platform/db.ts';

export type AuthMethod = 'basic' | 'post' | 'none' | 'private_key_jwt';
export type AppType = 'web' | 'user_agent' | 'native';
export type AccessTokenType = 'opaque' | 'jwt';

export interface AppRow {
  id: string;
  project_id: string;
  name: string;
  kind: 'oidc' | 'api';
  client_id: string;
  secret_hash: string | null;
  auth_method: AuthMethod;
  app_type: AppType;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  response_types: string[];
  grant_types: string[];
  access_token_type: AccessTokenType;
  id_token_userinfo_assertion: boolean;
  id_token_role_assertion: boolean;
  access_token_role_assertion: boolean;
  dev_mode: boolean;
  /** Gatehouse's own setting (not in ZITADEL's app API): only pushed authorization requests (RFC 9126). */
  require_par: boolean;
  state: 'active' | 'inactive';
  created_at: Date;
  changed_at: Date;
  sequence: string;
  /** The project's org: the resource owner of the app. */
  org_id: string;
  /** The project's state and settings: an inactive project's apps do not sign in. */
  project_state: 'active' | 'inactive';
  project_role_assertion: boolean;
  project_role_check: boolean;
  has_project_check: boolean;
}

/** An AppRow's columns from APPS_FROM. */
export const APP_COLUMNS = `a.id, a.project_id, a.name, a.kind, a.client_id, a.secret_hash, a.auth_method, a.app_type,
  a.redirect_uris, a.post_logout_redirect_uris, a.response_types, a.grant_types, a.access_token_type,
  a.id_token_userinfo_assertion, a.id_token_role_assertion, a.access_token_role_assertion, a.dev_mode, a.require_par,
  a.state, a.created_at, a.changed_at, a.sequence, p.org_id, p.state AS project_state, p.project_role_assertion,
  p.project_role_check, p.has_project_check`;
export const APPS_FROM = 'apps a JOIN projects p ON p.id = a.project_id';

const SELECT_APP = `SELECT ${APP_COLUMNS} FROM ${APPS_FROM}`;

export async function findAppById(db: Queryable, id: string): Promise<AppRow | undefined> {
  const { rows } = await db.query<AppRow>(`${SELECT_APP} WHERE a.id = $1`, [id]);
  return rows[0];
}

/** How many apps the org's projects hold (the console's overview; projects_name_unique and apps_project_idx). */
export async function countOrgApps(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM apps a JOIN projects p ON p.id = a.project_id WHERE p.org_id = $1',
    [orgId],
  );
  return rows[0]!.n;
}

export async function findAppByClientId(db: Queryable, clientId: string): Promise<AppRow | undefined> {
  const { rows } = await db.query<AppRow>(`${SELECT_APP} WHERE a.client_id = $1`, [clientId]);
  return rows[0];
}

export interface AppConfig {
  authMethod: AuthMethod;
  appType: AppType;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  responseTypes: string[];
  grantTypes: string[];
  accessTokenType: AccessTokenType;
  idTokenUserinfoAssertion: boolean;
  idTokenRoleAssertion: boolean;
  accessTokenRoleAssertion: boolean;
  devMode: boolean;
}

export async function insertApp(
  tx: Queryable,
  a: AppConfig & {
    id: string;
    projectId: string;
    name: string;
    kind: 'oidc' | 'api';
    clientId: string;
    secretHash: string | null;
    sequence: string;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO apps (id, project_id, name, kind, client_id, secret_hash, auth_method, app_type, redirect_uris,
       post_logout_redirect_uris, response_types, grant_types, access_token_type, id_token_userinfo_assertion, ` +
      `dev_mode, sequence, id_token_role_assertion, access_token_role_assertion)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      a.id,
      a.projectId,
      a.name,
      a.kind,
      a.clientId,
      a.secretHash,
      a.authMethod,
      a.appType,
      a.redirectUris,
      a.postLogoutRedirectUris,
      a.responseTypes,
      a.grantTypes,
      a.accessTokenType,
      a.idTokenUserinfoAssertion,
      a.devMode,
      a.sequence,
      a.idTokenRoleAssertion,
      a.accessTokenRoleAssertion,
    ],
  );
}

export async function updateAppConfig(
  tx: Queryable,
  id: string,
  c: AppConfig & { secretHash: string | null; sequence: string; changedAt: Date },
): Promise<void> {
  await tx.query(
    `UPDATE apps SET auth_method = $2, app_type = $3, redirect_uris = $4, post_logout_redirect_uris = $5, ` +
      `response_types = $6,
       grant_types = $7, access_token_type = $8, id_token_userinfo_assertion = $9, dev_mode = $10, secret_hash = $11,
       sequence = $12, changed_at = $13, id_token_role_assertion = $14, access_token_role_assertion = $15
     WHERE id = $1`,
    [
      id,
      c.authMethod,
      c.appType,
      c.redirectUris,
      c.postLogoutRedirectUris,
      c.responseTypes,
      c.grantTypes,
      c.accessTokenType,
      c.idTokenUserinfoAssertion,
      c.devMode,
      c.secretHash,
      c.sequence,
      c.changedAt,
      c.idTokenRoleAssertion,
      c.accessTokenRoleAssertion,
    ],
  );
}

export async function insertAppKey(
  tx: Queryable,
  k: { id: string; appId: string; publicJwk: object; expiresAt: Date },
): Promise<void> {
  await tx.query('INSERT INTO app_keys (id, app_id, public_jwk, expires_at) VALUES ($1, $2, $3, $4)', [
    k.id,
    k.appId,
    k.publicJwk,
    k.expiresAt,
  ]);
}

export async function findActiveAppKeys(db: Queryable, appId: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await db.query<{ public_jwk: Record<string, unknown> }>(
    'SELECT public_jwk FROM app_keys WHERE app_id = $1 AND expires_at > now() ORDER BY created_at',
    [appId],
  );
  return rows.map((r) => r.public_jwk);
}

/** Columns an app change may set (lifecycle.ts): the keys are trusted column names, never a request's. */
export type AppColumns = Partial<Pick<AppRow, 'name' | 'state' | 'secret_hash' | 'auth_method' | 'require_par'>>;

export async function updateAppColumns(
  tx: Queryable,
  id: string,
  columns: AppColumns,
  sequence: string,
  changedAt: Date,
): Promise<void> {
  const sets = Object.keys(columns).map((name, i) => `${name} = $${i + 4}`);
  await tx.query(`UPDATE apps SET ${[...sets, 'sequence = $2', 'changed_at = $3'].join(', ')} WHERE id = $1`, [
    id,
    sequence,
    changedAt,
    ...Object.values(columns),
  ]);
}

export async function lockApp(tx: Queryable, id: string): Promise<void> {
  await tx.query('SELECT 1 FROM apps WHERE id = $1 FOR UPDATE', [id]);
}

export async function deleteApp(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM apps WHERE id = $1', [id]);
}

export interface KeyRow {
  id: string;
  expires_at: Date;
  created_at: Date;
}

/** Deletes a key of the app; false when it has no such key. */
export async function deleteAppKey(tx: Queryable, appId: string, keyId: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM app_keys WHERE id = $1 AND app_id = $2', [keyId, appId]);
  return rowCount === 1;
}
