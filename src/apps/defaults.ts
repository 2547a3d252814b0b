// What a new OIDC app gets unless told otherwise when a person makes it, in the console or with `gatehouse app
// create`: one set, so that an app works the same whichever way it was made. The management API keeps ZITADEL's own
// defaults (schema.ts: authorization_code only), which its clients expect.

import type { AppType, AuthMethod } from './queries.ts';

/** The code flow with refresh tokens: a sign-in that asks for offline_access gets a refresh token. */
export const NEW_APP_FLOWS = {
  responseTypes: ['code'],
  grantTypes: ['authorization_code', 'refresh_token'],
} as const;

/** Client authentication by app type: a web server keeps a secret (HTTP Basic); a browser or native app cannot keep
 *  one, so it is a public client with PKCE (RFC 8252 §8.4, RFC 7636). */
export const NEW_APP_AUTH_METHOD: Readonly<Record<AppType, AuthMethod>> = {
  web: 'basic',
  user_agent: 'none',
  native: 'none',
};

/** An API (ZITADEL's API app: a resource server that only calls introspection) authenticates with a client secret
 *  over HTTP Basic unless told otherwise, as AddAPIApp's default; private_key_jwt is the other choice. */
export const NEW_API_APP_AUTH_METHOD = 'basic' as const satisfies AuthMethod;
