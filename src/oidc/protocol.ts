// The names both engines answer to: ZITADEL's endpoint paths, which the provider is configured with
// (provider/provider.ts) and the fast endpoints serve (fast/), and the JWT-profile grant type.

export const ROUTES = {
  authorization: '/oauth/v2/authorize',
  token: '/oauth/v2/token',
  introspection: '/oauth/v2/introspect',
  revocation: '/oauth/v2/revoke',
  userinfo: '/oidc/v1/userinfo',
  end_session: '/oidc/v1/end_session',
  jwks: '/oauth/v2/keys',
} as const;

/** RFC 7523 §2.1: the JWT-profile grant of machine users. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
