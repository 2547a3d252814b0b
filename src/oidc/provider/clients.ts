// OAuth clients come from our own model on every lookup: OIDC and API apps by client ID, and each machine user as two
// clients: its user ID for the JWT-profile grant (no client authentication, as in ZITADEL) and its user name for
// client_credentials (with the hashed secret; compareClientSecret verifies it, see provider.ts).
import type { AdapterPayload } from 'oidc-provider';
import type { Db } from '../../platform/db.ts';
import { findClientApp } from '../../apps/service.ts';
import { usableRedirectUri } from '../../apps/schema.ts';
import { findActiveMachine } from '../../users/machine-service.ts';
import { URIS_NEEDING_DEV_MODE } from '../dev-mode-uris.ts';
import { JWT_BEARER } from '../protocol.ts';
import { takeScoped } from '../../platform/request-scope.ts';
import { APP_AHEAD } from '../read-ahead.ts';

/** Client metadata oidc-provider does not know; kept on the client object under these names. */
export const CLIENT_EXTRA_PROPERTIES = [
  'access_token_type',
  'id_token_userinfo_assertion',
  'id_token_role_assertion',
  'access_token_role_assertion',
  'project_role_assertion',
  'project_role_check',
  'has_project_check',
  'project_org_id',
  'dev_mode',
  'project_id',
  'machine_user_id',
  'gatehouse_kind',
  URIS_NEEDING_DEV_MODE,
];

/** The stored client authentication as OAuth names it (token_endpoint_auth_method, RFC 7591 §2). */
export const OAUTH_AUTH_METHODS = {
  basic: 'client_secret_basic',
  post: 'client_secret_post',
  none: 'none',
  private_key_jwt: 'private_key_jwt',
} as const;

/** `requirePar`: GATEHOUSE_REQUIRE_PAR, pushed authorization requests required of every app. */
export async function findClientMetadata(
  db: Db,
  clientId: string,
  requirePar: boolean,
): Promise<AdapterPayload | undefined> {
  const found = await clientApp(db, clientId);
  if (found) {
    const { app, keys } = found;
    const usable = (uri: string) => usableRedirectUri(uri, { devMode: app.dev_mode, appType: app.app_type });
    return {
      client_id: app.client_id,
      ...(app.secret_hash ? { client_secret: app.secret_hash } : {}),
      token_endpoint_auth_method: OAUTH_AUTH_METHODS[app.auth_method],
      ...(app.auth_method === 'private_key_jwt' ? { jwks: { keys } } : {}),
      application_type: app.app_type === 'native' ? 'native' : 'web',
      // URIs reported as not compliant are kept but never match (apps/schema.ts oidcComplianceProblems); kept apart,
      // so a refusal can say why (dev-mode-uris.ts)
      redirect_uris: app.redirect_uris.filter(usable),
      post_logout_redirect_uris: app.post_logout_redirect_uris.filter(usable),
      [URIS_NEEDING_DEV_MODE]: [...app.redirect_uris, ...app.post_logout_redirect_uris].filter((uri) => !usable(uri)),
      response_types: app.response_types as never,
      grant_types: app.grant_types,
      // RFC 9126 §6: a plain authorization request of this app is refused (invalid_request)
      require_pushed_authorization_requests: requirePar || app.require_par,
      access_token_type: app.access_token_type,
      id_token_userinfo_assertion: app.id_token_userinfo_assertion,
      id_token_role_assertion: app.id_token_role_assertion,
      access_token_role_assertion: app.access_token_role_assertion,
      project_role_assertion: app.project_role_assertion,
      project_role_check: app.project_role_check,
      has_project_check: app.has_project_check,
      project_org_id: app.org_id,
      dev_mode: app.dev_mode,
      project_id: app.project_id,
      gatehouse_kind: app.kind,
    };
  }
  const machine = await findActiveMachine(db, { id: clientId });
  if (machine) {
    return {
      client_id: machine.id,
      token_endpoint_auth_method: 'none',
      redirect_uris: [],
      response_types: [],
      grant_types: [JWT_BEARER],
      jwks: { keys: machine.jwks },
      access_token_type: machine.access_token_type,
      machine_user_id: machine.id,
      gatehouse_kind: 'machine',
    };
  }
  const named = await findActiveMachine(db, { userName: clientId });
  if (named?.secret_hash) {
    return {
      client_id: clientId,
      client_secret: named.secret_hash,
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [],
      response_types: [],
      grant_types: ['client_credentials'],
      access_token_type: named.access_token_type,
      machine_user_id: named.id,
      gatehouse_kind: 'machine',
    };
  }
  return undefined;
}

/** The active app of the client ID, read ahead with the authorization request (read-ahead.ts) unless its keys are
 *  needed too (private_key_jwt). */
async function clientApp(db: Db, clientId: string): ReturnType<typeof findClientApp> {
  const ahead = takeScoped(APP_AHEAD, clientId);
  if (!ahead || ahead.value?.auth_method === 'private_key_jwt') return findClientApp(db, clientId);
  return ahead.value?.state === 'active' ? { app: ahead.value, keys: [] } : undefined;
}
