// zitadel.app.v1 messages ⇄ the app model (src/apps): enum numbers of the descriptors to the stored names, and
// the App message GetAppByID returns.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppState, OIDCVersion, type AppSchema } from '@zitadel/proto/zitadel/app_pb.js';
import type { AddOIDCAppRequest, UpdateOIDCAppConfigRequest } from '@zitadel/proto/zitadel/management_pb.js';
import type { AccessTokenType, AppRow, AppType, AuthMethod } from '../apps/queries.ts';
import { oidcComplianceProblems, type OidcConfigInput } from '../apps/schema.ts';
import { NEW_APP_AUTH_METHOD, NEW_APP_FLOWS } from '../apps/defaults.ts';
import { invalidArgument } from '../platform/errors.ts';
import { storedDetails } from './convert.ts';

// Indexed by the proto enum number (OIDCResponseType, OIDCGrantType, OIDCAppType, OIDCAuthMethodType, OIDCTokenType).
const RESPONSE_TYPES = ['code', 'id_token', 'id_token token'] as const;
const GRANT_TYPES: readonly ('authorization_code' | 'implicit' | 'refresh_token')[] = [
  'authorization_code',
  'implicit',
  'refresh_token',
];
export const APP_TYPES: readonly AppType[] = ['web', 'user_agent', 'native'];
export const AUTH_METHODS: readonly AuthMethod[] = ['basic', 'post', 'none', 'private_key_jwt'];
export const TOKEN_TYPES: readonly AccessTokenType[] = ['opaque', 'jwt'];
export const API_AUTH_METHODS = ['basic', 'private_key_jwt'] as const;

const number = <T>(list: readonly T[], value: T) => list.indexOf(value);

/** The OIDC configuration of AddOIDCApp / UpdateOIDCAppConfig; empty lists take the model's defaults. */
export function oidcConfigInput(req: AddOIDCAppRequest | UpdateOIDCAppConfigRequest, request: string): OidcConfigInput {
  const grantTypes = req.grantTypes.map((g) => {
    const name = GRANT_TYPES[g];
    // device code and token exchange are not offered (Gatehouse serves only the grants of its discovery)
    if (!name) throw invalidArgument(`invalid ${request}.GrantTypes: grant type ${g} is not supported`, 'APP-Gr4nt');
    return name;
  });
  return {
    redirectUris: req.redirectUris,
    postLogoutRedirectUris: req.postLogoutRedirectUris,
    ...(req.responseTypes.length ? { responseTypes: req.responseTypes.map((t) => RESPONSE_TYPES[t]!) } : {}),
    ...(grantTypes.length ? { grantTypes } : {}),
    appType: APP_TYPES[req.appType]!,
    authMethod: AUTH_METHODS[req.authMethodType]!,
    accessTokenType: TOKEN_TYPES[req.accessTokenType]!,
    idTokenUserinfoAssertion: req.idTokenUserinfoAssertion,
    idTokenRoleAssertion: req.idTokenRoleAssertion,
    accessTokenRoleAssertion: req.accessTokenRoleAssertion,
    devMode: req.devMode,
  };
}

/** AddOIDCApp's settings of a new app of this type as a person makes it (apps/defaults.ts), as enum numbers. */
export function newOidcAppSettings(appType: AppType) {
  return {
    appType: number(APP_TYPES, appType),
    authMethodType: number(AUTH_METHODS, NEW_APP_AUTH_METHOD[appType]),
    responseTypes: NEW_APP_FLOWS.responseTypes.map((t) => number(RESPONSE_TYPES, t)),
    grantTypes: NEW_APP_FLOWS.grantTypes.map((g) => number(GRANT_TYPES, g)),
  };
}

const COMPLIANCE_TEXT: Record<string, string> = {
  'Application.OIDC.V1.NotCompliant': 'The configuration is not OIDC compliant.',
  'Application.OIDC.V1.Code.RedirectUris.HttpOnlyForDevMode':
    'http redirect URIs are only used in dev mode (or loopback URIs of native apps).',
  'Application.OIDC.V1.Implicit.RedirectUris.HttpNotAllowed':
    'http redirect URIs of implicit flows are only used in dev mode.',
  'Application.OIDC.V1.UserAgent.AuthMethodType.NotNone':
    'User agent apps should use the auth method none (with PKCE).',
  'Application.OIDC.V1.Native.AuthMethodType.NotNone': 'Native apps should use the auth method none (with PKCE).',
};

export function complianceMessages(problems: readonly string[]) {
  return {
    noneCompliant: problems.length > 0,
    complianceProblems: problems.map((key) => ({ key, localizedMessage: COMPLIANCE_TEXT[key] ?? key })),
  };
}

export function appMessage(app: AppRow): MessageInitShape<typeof AppSchema> {
  const base = {
    id: app.id,
    details: storedDetails(app, app.org_id),
    state: app.state === 'active' ? AppState.ACTIVE : AppState.INACTIVE,
    name: app.name,
  };
  if (app.kind === 'api') {
    return {
      ...base,
      config: {
        case: 'apiConfig',
        value: { clientId: app.client_id, authMethodType: number(API_AUTH_METHODS, app.auth_method as 'basic') },
      },
    };
  }
  const problems = oidcComplianceProblems({
    redirectUris: app.redirect_uris,
    postLogoutRedirectUris: app.post_logout_redirect_uris,
    responseTypes: app.response_types as never,
    grantTypes: app.grant_types as never,
    appType: app.app_type,
    authMethod: app.auth_method,
    accessTokenType: app.access_token_type,
    idTokenUserinfoAssertion: app.id_token_userinfo_assertion,
    idTokenRoleAssertion: app.id_token_role_assertion,
    accessTokenRoleAssertion: app.access_token_role_assertion,
    devMode: app.dev_mode,
  });
  return {
    ...base,
    config: {
      case: 'oidcConfig',
      value: {
        clientId: app.client_id,
        redirectUris: app.redirect_uris,
        postLogoutRedirectUris: app.post_logout_redirect_uris,
        responseTypes: app.response_types.map((t) => number(RESPONSE_TYPES, t as never)),
        grantTypes: app.grant_types.map((g) => number(GRANT_TYPES, g as never)),
        appType: number(APP_TYPES, app.app_type),
        authMethodType: number(AUTH_METHODS, app.auth_method),
        accessTokenType: number(TOKEN_TYPES, app.access_token_type),
        idTokenUserinfoAssertion: app.id_token_userinfo_assertion,
        idTokenRoleAssertion: app.id_token_role_assertion,
        accessTokenRoleAssertion: app.access_token_role_assertion,
        devMode: app.dev_mode,
        version: OIDCVersion.OIDC_VERSION_1_0,
        ...complianceMessages(problems),
      },
    },
  };
}
