// Whether a presented access token is active, answered with one query for every consumer: introspection, userinfo
// and the management API's bearer check (compat.md §4: "checked like introspection"). The rules are oidc-provider's
// own (token_find, access_token.js, token_helpers.js checkSessionBinding) plus ours: the user must be active and the
// client must still exist. The token's row, its grant, its session, its client and its user come back together.
import type { Queryable } from '../platform/db.ts';
import { batchedStatement } from '../platform/batch.ts';
import { USER_PROFILE_COLUMNS, type UserProfileRow } from '../users/queries.ts';
import { hashId } from './adapter.ts';
import { usableRedirectUri } from '../apps/schema.ts';
import type { AppType } from '../apps/queries.ts';

/** The fields of oidc-provider's AccessToken payload that Gatehouse reads. */
export interface AccessTokenPayload {
  jti: string;
  iat: number;
  exp: number;
  accountId?: string;
  clientId: string;
  grantId?: string;
  scope?: string;
  expiresWithSession?: boolean;
  sessionUid?: string;
  gatehouseJwt?: boolean;
  extra?: Record<string, unknown>;
}

export interface ActiveAccessToken {
  payload: AccessTokenPayload;
  scopes: ReadonlySet<string>;
  user: UserProfileRow;
  /**
   * The token's client: an app (with its project and usable redirect URIs) or, for machine grants, the machine user,
   * whose audience entry is its user ID (see activeAccessToken).
   */
  client: { clientId: string; audienceId: string; projectId?: string; redirectUris: string[] };
}

/**
 * One access token row joined to everything that decides whether it is active. `storageId` is the SQL expression of
 * the row's id (hashId of the token's jti). Columns are prefixed, so the lookup can sit next to others (introspection
 * joins its caller into the same statement). LIMIT 1 says what the primary key already guarantees, and keeps
 * PostgreSQL from flattening the lookup, run once per key of a batch, into joins across the batch: those scan users
 * and orgs whole, and when both grew after the plan was made (the benchmark's SetUpOrg run) a lookup took a second.
 * test/oidc/lookup-plans.test.ts holds the plan to one index lookup per key.
 */
export const accessTokenLookup = (storageId: string) =>
  `
  SELECT t.payload AS token_payload, g.payload AS grant_payload, s.payload AS session_payload,
         a.project_id AS app_project_id, a.redirect_uris AS app_redirect_uris, a.dev_mode AS app_dev_mode, ` +
  `a.app_type AS app_app_type,
         (a.id IS NOT NULL) AS app_found,
         ${USER_PROFILE_COLUMNS}
  FROM oidc_payloads t
  LEFT JOIN LATERAL (
    SELECT payload FROM oidc_payloads
    WHERE grant_id = t.grant_id AND model = 'Grant' AND (expires_at IS NULL OR expires_at > now())
    LIMIT 1
  ) g ON t.grant_id IS NOT NULL
  LEFT JOIN LATERAL (
    SELECT payload FROM oidc_payloads
    WHERE model = 'Session' AND uid = t.payload->>'sessionUid' AND (expires_at IS NULL OR expires_at > now())
    ORDER BY updated_at DESC LIMIT 1
  ) s ON t.payload->>'expiresWithSession' = 'true'
  LEFT JOIN apps a ON a.client_id = t.payload->>'clientId' AND a.state = 'active'
  LEFT JOIN users u ON u.id = t.payload->>'accountId'
  LEFT JOIN orgs o ON o.id = u.org_id
  WHERE t.model = 'AccessToken' AND t.id = ${storageId} AND (t.expires_at IS NULL OR t.expires_at > now())
  LIMIT 1`;

export interface AccessTokenRow extends Partial<UserProfileRow> {
  /** Stored without its jti (adapter.ts storedPayload); rows of older versions still have it. */
  token_payload: (Omit<AccessTokenPayload, 'jti'> & { jti?: string }) | null;
  grant_payload: { accountId?: string; clientId?: string; exp?: number } | null;
  session_payload: { accountId?: string; authorizations?: Record<string, { grantId?: string }> } | null;
  app_project_id: string | null;
  app_redirect_uris: string[] | null;
  app_dev_mode: boolean | null;
  app_app_type: AppType | null;
  app_found: boolean | null;
}

/** A presented token's storage reference: opaque tokens are their own jti; JWTs were verified before
 *  (jwt-access-tokens.ts). */
export interface TokenReference {
  jti: string;
  jwt: boolean;
}

// Concurrent lookups share one statement (platform/batch.ts); $1 holds their storage ids.
export const ACCESS_TOKENS_SQL = `
  SELECT r.i, tok.* FROM unnest($1::text[]) WITH ORDINALITY AS r(id, i)
  JOIN LATERAL (${accessTokenLookup('r.id')}) AS tok ON true`;

export type ActiveAccessTokenFinder = (ref: TokenReference) => Promise<ActiveAccessToken | undefined>;

/** Finds presented tokens that are active, for userinfo and the management API's bearer check. */
export function activeAccessTokenFinder(db: Queryable): ActiveAccessTokenFinder {
  const lookup = batchedStatement<[string], AccessTokenRow>(db, ACCESS_TOKENS_SQL);
  return async (ref) => {
    const row = await lookup([hashId(ref.jti)]);
    return row && activeAccessToken(row, ref);
  };
}

/** The rules, applied to the joined row. */
export function activeAccessToken(row: AccessTokenRow, ref: TokenReference): ActiveAccessToken | undefined {
  const stored = row.token_payload;
  if (!stored || stored.exp <= Math.floor(Date.now() / 1000)) return undefined;
  const token: AccessTokenPayload = { ...stored, jti: ref.jti }; // the row was found by this jti's hash
  // A JWT's jti is printed in the token itself: it is no bearer token, so such rows answer only through the JWT.
  if (Boolean(token.gatehouseJwt) !== ref.jwt) return undefined;
  // A revoked grant (refresh token revocation, code replay) ends its tokens.
  if (token.grantId) {
    const grant = row.grant_payload;
    if (!grant || grant.clientId !== token.clientId || grant.accountId !== token.accountId) return undefined;
  }
  // Tokens without offline_access end with the login session (logout, session expiry).
  if (token.expiresWithSession) {
    const session = row.session_payload;
    if (
      !session ||
      session.accountId !== token.accountId ||
      session.authorizations?.[token.clientId]?.grantId !== token.grantId
    )
      return undefined;
  }
  if (!token.accountId || row.id !== token.accountId || row.state !== 'active') return undefined;
  const user = row as UserProfileRow;
  const scopes = new Set(
    String(token.scope ?? '')
      .split(' ')
      .filter(Boolean),
  );
  // The client must still exist. A machine user's tokens come only from the machine grants, whose client is the
  // machine user itself (clients.ts): they are never resolved through an app, even one whose client ID equals the
  // machine user's name (issue 13 §4: a name stored by an older version), so they never get an app's project or
  // redirect URIs. Their audience names the machine user by its ID, not by the client_credentials client ID (its
  // user name), which such an app would take for its own; user IDs never look like app client IDs.
  // A human's tokens belong to an active app.
  if (user.type === 'machine') {
    if (token.clientId !== user.id && token.clientId.toLowerCase() !== user.user_name.toLowerCase()) return undefined;
    return {
      payload: token,
      scopes,
      user,
      client: { clientId: token.clientId, audienceId: user.id, redirectUris: [] },
    };
  }
  if (!row.app_found) return undefined;
  return {
    payload: token,
    scopes,
    user,
    client: {
      clientId: token.clientId,
      audienceId: token.clientId,
      projectId: row.app_project_id ?? undefined,
      redirectUris: (row.app_redirect_uris ?? []).filter((uri) =>
        usableRedirectUri(uri, { devMode: Boolean(row.app_dev_mode), appType: row.app_app_type ?? 'web' }),
      ),
    },
  };
}
