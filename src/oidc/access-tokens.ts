// Whether a presented access token is active, answered with one query for every consumer: introspection, userinfo and
// the management API's bearer check (which checks a token as introspection does). The rules are oidc-provider's own
// (token_find, access_token.js, token_helpers.js checkSessionBinding) plus ours: the user must be active and the client
// must still exist. The token's row, its grant, its session, its client and its user come back together.
import type { Queryable } from '../platform/db.ts';
import { batchedStatement } from '../platform/batch.ts';
import { isActive } from '../users/lookup.ts';
import type { UserProfileRow } from '../users/queries.ts';
import { usableRedirectUri } from '../apps/schema.ts';
import { hashId, type AccessTokenPayload } from './payloads.ts';
import type { MembershipRow } from '../members/queries.ts';
import { ACCESS_TOKENS_SQL, BEARER_SQL, type AccessTokenRow, type BearerRow } from './queries.ts';

export interface ActiveAccessToken {
  payload: AccessTokenPayload;
  scopes: ReadonlySet<string>;
  user: UserProfileRow;
  /**
   * The token's client: an app (with its project and usable redirect URIs) or, for machine grants, the machine user,
   * whose audience entry is its user ID (see activeAccessToken).
   */
  client: {
    clientId: string;
    audienceId: string;
    projectId?: string;
    /** The project's projectRoleAssertion: roles without being asked for. */
    projectRoleAssertion: boolean;
    redirectUris: string[];
  };
}

/** A presented token's storage reference: opaque tokens are their own jti; JWTs were verified before
 *  (jwt-access-tokens.ts). */
export interface TokenReference {
  jti: string;
  jwt: boolean;
}

export type ActiveAccessTokenFinder = (ref: TokenReference) => Promise<ActiveAccessToken | undefined>;

/** Finds presented tokens that are active, for userinfo and the management API's bearer check. */
export function activeAccessTokenFinder(db: Queryable): ActiveAccessTokenFinder {
  const lookup = batchedStatement<[string], AccessTokenRow>(db, ACCESS_TOKENS_SQL);
  return async (ref) => {
    const row = await lookup([hashId(ref.jti)]);
    return row && activeAccessToken(row, ref);
  };
}

/** A bearer of the management API: its active token, the user's memberships and whether the org in context
 *  exists (queries.ts BEARER_SQL). */
export interface ActiveBearer {
  token: ActiveAccessToken;
  memberships: MembershipRow[];
  contextOrgExists: boolean;
}

export type ActiveBearerFinder = (
  ref: TokenReference,
  contextOrgId: string | undefined,
) => Promise<ActiveBearer | undefined>;

/** Finds the management API's bearers, with the rules of activeAccessToken. */
export function activeBearerFinder(db: Queryable): ActiveBearerFinder {
  const lookup = batchedStatement<[string, string | null], BearerRow>(db, BEARER_SQL);
  return async (ref, contextOrgId) => {
    const row = await lookup([hashId(ref.jti), contextOrgId ?? null]);
    const token = row && activeAccessToken(row, ref);
    return token && { token, memberships: row.caller_memberships, contextOrgExists: row.context_org_exists };
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
  const user = row as UserProfileRow;
  if (!token.accountId || row.id !== token.accountId || !isActive(user)) return undefined;
  const scopes = new Set(
    String(token.scope ?? '')
      .split(' ')
      .filter(Boolean),
  );
  // The client must still exist. A machine user's tokens come only from the machine grants, whose client is the machine
  // user itself (clients.ts): they are never resolved through an app, even one whose client ID equals the machine
  // user's name (a name stored by an older version), so they never get an app's project or redirect URIs. Their
  // audience names the machine user by its ID, not by the client_credentials client ID (its user name), which such an
  // app would take for its own; user IDs never look like app client IDs.
  // A human's tokens belong to an active app.
  if (user.type === 'machine') {
    if (token.clientId !== user.id && token.clientId.toLowerCase() !== user.user_name.toLowerCase()) return undefined;
    return {
      payload: token,
      scopes,
      user,
      client: { clientId: token.clientId, audienceId: user.id, projectRoleAssertion: false, redirectUris: [] },
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
      projectRoleAssertion: Boolean(row.app_project_role_assertion),
      redirectUris: (row.app_redirect_uris ?? []).filter((uri) =>
        usableRedirectUri(uri, { devMode: Boolean(row.app_dev_mode), appType: row.app_app_type ?? 'web' }),
      ),
    },
  };
}
