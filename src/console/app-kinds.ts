// The four kinds of app a person chooses from when making one in the console, each with one sentence that says when
// to choose it, and what an app of that kind gets: an OIDC app of a type (AddOIDCApp with a new app's defaults of that
// type, apps/defaults.ts, the same the CLI gives), or ZITADEL's API app (AddAPIApp: a resource server that only calls
// introspection, RFC 7662, so it has no redirect URIs and no grant types).
import { NEW_API_APP_AUTH_METHOD, NEW_APP_AUTH_METHOD, NEW_APP_FLOWS } from '../apps/defaults.ts';
import type { AppType } from '../apps/queries.ts';
import { OAUTH_AUTH_METHODS } from '../oidc/provider/clients.ts';

export const APP_KINDS = {
  web: { appType: 'web', label: 'kindWeb', about: 'kindWebAbout', redirectHelp: 'redirectHelpWeb' },
  spa: { appType: 'user_agent', label: 'kindSpa', about: 'kindSpaAbout', redirectHelp: 'redirectHelpSpa' },
  native: { appType: 'native', label: 'kindNative', about: 'kindNativeAbout', redirectHelp: 'redirectHelpNative' },
  api: { appType: undefined, label: 'kindApi', about: 'kindApiAbout', redirectHelp: undefined },
} as const;
export type AppKind = keyof typeof APP_KINDS;

export const isAppKind = (value: string): value is AppKind => Object.hasOwn(APP_KINDS, value);

/** The kind of a saved app: an API app, else its OIDC app type's. */
export function kindOf(appType: AppType | undefined): AppKind {
  const found = Object.entries(APP_KINDS).find(([, k]) => k.appType === appType);
  return found![0] as AppKind;
}

/** What a new app of this kind gets, in OAuth's names (RFC 7591 §2: grant_types, token_endpoint_auth_method), for the
 *  form to show before the app is made. An API's authentication is the form's choice; this is its default. */
export function kindDefaults(kind: AppKind): { grantTypes: readonly string[]; authMethod: string; pkce: boolean } {
  const { appType } = APP_KINDS[kind];
  if (appType === undefined)
    return { grantTypes: [], authMethod: OAUTH_AUTH_METHODS[NEW_API_APP_AUTH_METHOD], pkce: false };
  const authMethod = NEW_APP_AUTH_METHOD[appType];
  // a public client proves the code's possession with PKCE (RFC 7636), which the provider requires of it
  return {
    grantTypes: NEW_APP_FLOWS.grantTypes,
    authMethod: OAUTH_AUTH_METHODS[authMethod],
    pkce: authMethod === 'none',
  };
}
