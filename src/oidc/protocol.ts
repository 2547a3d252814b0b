// What both engines share: ZITADEL's endpoint paths, which the provider is configured with (provider/provider.ts) and
// the fast endpoints serve (fast/), the JWT-profile grant type, the algorithms of client assertions, and the version
// of oidc-provider whose code the fast endpoints mirror.

export const ROUTES = {
  authorization: '/oauth/v2/authorize',
  // RFC 9126 §2, beside ZITADEL's other /oauth/v2 paths (ZITADEL has no PAR endpoint of its own)
  pushed_authorization_request: '/oauth/v2/par',
  token: '/oauth/v2/token',
  introspection: '/oauth/v2/introspect',
  revocation: '/oauth/v2/revoke',
  userinfo: '/oidc/v1/userinfo',
  end_session: '/oidc/v1/end_session',
  jwks: '/oauth/v2/keys',
} as const;

/** RFC 7523 §2.1: the JWT-profile grant of machine users. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The algorithms a client assertion (private_key_jwt, RFC 7523 §3) may be signed with: asymmetric ones only, since
 *  no client authenticates with client_secret_jwt. The provider is configured with them and the fast endpoints verify
 *  with them, so a client is accepted by both or by neither. */
export const CLIENT_ASSERTION_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'EdDSA'] as const;

/** The algorithms a request object (RFC 9101 §4) may be signed with: the same asymmetric ones, verified with the keys
 *  the app registered for private_key_jwt. Never `none` (an unsigned object is refused, RFC 9101 §6.1 lets the server
 *  require signatures) and never HS*: a client secret is stored only as a keyed hash, which must not become a key. */
export const REQUEST_OBJECT_ALGS = CLIENT_ASSERTION_ALGS;

/**
 * The major version of oidc-provider (package.json) whose code the fast endpoints mirror: each file of fast/ that
 * answers as the library would names the library's files it follows, and must be compared with them again when the
 * major version changes (test/oidc/upstream-version.test.ts fails until then).
 */
export const OIDC_PROVIDER_MAJOR = 9;
