// The SQL of the OIDC layer's hot paths over oidc_payloads (oidc-provider's own storage and the sweep are in
// payload-store.ts): the statements that introspection, userinfo, the management API's bearer check, the machine
// grants, the code and refresh fast path and the authorization read-ahead run on every request. Each joins what it
// needs from users, orgs and apps in one statement rather than reading those domains through their services (one round
// trip per request, shared by concurrent requests: platform/batch.ts); test/oidc/lookup-plans.test.ts holds each to
// index lookups. Ids are storage ids (payloads.ts hashId); payloads are stored payloads (storedPayload). The signing
// keys keep their own statements (keys.ts).
import type { JSONWebKeySet } from 'jose';
import type { AdapterPayload } from 'oidc-provider';
import { APP_COLUMNS, APPS_FROM, type AppType } from '../apps/queries.ts';
import { membershipsOf, type MembershipRow } from '../members/queries.ts';
import { USER_PROFILE_COLUMNS, type UserProfileRow } from '../users/queries.ts';
import type { AccessTokenPayload } from './payloads.ts';

/**
 * One access token row joined to everything that decides whether it is active. `storageId` is the SQL expression of
 * the row's id (hashId of the token's jti): an oidc-provider row, else a personal access token (looked at only when
 * there is no such row). Columns are prefixed, so the lookup can sit next to others (introspection joins its caller
 * into the same statement). LIMIT 1 says what the primary key already guarantees, and keeps
 * PostgreSQL from flattening the lookup, run once per key of a batch, into joins across the batch: those scan users
 * and orgs whole, and when both grew after the plan was made (the benchmark's SetUpOrg run) a lookup took a second.
 * test/oidc/lookup-plans.test.ts holds the plan to one index lookup per key.
 */
export const accessTokenLookup = (storageId: string) => `
  SELECT t.payload AS token_payload, g.payload AS grant_payload, s.payload AS session_payload,
         a.project_id AS app_project_id, a.redirect_uris AS app_redirect_uris, a.dev_mode AS app_dev_mode,
         a.app_type AS app_app_type, ap.project_role_assertion AS app_project_role_assertion,
         (a.id IS NOT NULL AND ap.state = 'active') AS app_found,
         ${USER_PROFILE_COLUMNS}
  FROM (
    SELECT t.payload, t.grant_id FROM oidc_payloads t
    WHERE t.model = 'AccessToken' AND t.id = ${storageId} AND (t.expires_at IS NULL OR t.expires_at > now())
    UNION ALL
    ${personalAccessTokenPayload(storageId)}
    LIMIT 1
  ) t
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
  LEFT JOIN projects ap ON ap.id = a.project_id
  LEFT JOIN users u ON u.id = t.payload->>'accountId'
  LEFT JOIN orgs o ON o.id = u.org_id
  LIMIT 1`;

/**
 * A machine user's personal access token (users/personal-access-tokens.ts) as the payload of an access token of the
 * machine grants: its client is the machine user itself (clients.ts), so activeAccessToken applies the same rules to
 * it (expiry, the user active, its org active) and every consumer reads it like any other token. Its token id rides
 * along for introspection's jti and audience (fast/introspection.ts).
 */
const personalAccessTokenPayload = (storageId: string) => `
    SELECT jsonb_build_object(
             'iat', floor(extract(epoch FROM p.created_at))::bigint,
             'exp', floor(extract(epoch FROM p.expires_at))::bigint,
             'accountId', p.user_id, 'clientId', p.user_id, 'scope', p.scope, 'personalAccessTokenId', p.id),
           NULL
    FROM personal_access_tokens p WHERE p.token_hash = ${storageId}`;

export interface AccessTokenRow extends Partial<UserProfileRow> {
  /** Stored without its jti (payloads.ts storedPayload); rows of older versions still have it. */
  token_payload: (Omit<AccessTokenPayload, 'jti'> & { jti?: string }) | null;
  grant_payload: { accountId?: string; clientId?: string; exp?: number } | null;
  session_payload: { accountId?: string; authorizations?: Record<string, { grantId?: string }> } | null;
  app_project_id: string | null;
  app_redirect_uris: string[] | null;
  app_dev_mode: boolean | null;
  app_app_type: AppType | null;
  app_project_role_assertion: boolean | null;
  app_found: boolean | null;
}

// Concurrent lookups share one statement (platform/batch.ts); $1 holds their storage ids.
export const ACCESS_TOKENS_SQL = `
  SELECT r.i, tok.* FROM unnest($1::text[]) WITH ORDINALITY AS r(id, i)
  JOIN LATERAL (${accessTokenLookup('r.id')}) AS tok ON true`;

export interface BearerRow extends AccessTokenRow {
  /** The token's user's memberships (members/queries.ts MembershipRow). */
  caller_memberships: MembershipRow[];
  /** Whether the org in context (the one asked for, else the user's) exists. */
  context_org_exists: boolean;
}

// The management API's bearer check with what its permission check reads on every call: the user's memberships (its
// roles) and whether the org in context exists. One statement in place of three, shared by concurrent calls
// (platform/batch.ts); read per call, so a revoked token or a removed member is refused by the next call on every node.
// $1 holds the tokens' storage ids, $2 the orgs asked for (null: the user's own).
export const BEARER_SQL = `
  SELECT r.i, tok.*,
    (SELECT coalesce(json_agg(mine), '[]') FROM (${membershipsOf('tok.id')}) AS mine) AS caller_memberships,
    EXISTS (SELECT 1 FROM orgs co WHERE co.id = coalesce(r.org_id, tok.org_id)) AS context_org_exists
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(id, org_id, i)
  JOIN LATERAL (${accessTokenLookup('r.id')}) AS tok ON true`;

export interface IntrospectionRow extends AccessTokenRow {
  caller_client_id: string | null;
  caller_auth_method: string | null;
  caller_secret_hash: string | null;
  caller_project_id: string | null;
  caller_project_role_assertion: boolean | null;
  caller_keys: JSONWebKeySet['keys'] | null;
}

// The caller (an active app) next to the token, for each request of a batch (platform/batch.ts): $1 holds the
// tokens' storage ids, $2 the callers' client IDs.
export const INTROSPECTION_SQL = `
  SELECT r.i, tok.*, caller.*
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(token_id, caller_id, i)
  LEFT JOIN LATERAL (${accessTokenLookup('r.token_id')}) AS tok ON true
  LEFT JOIN LATERAL (
    SELECT c.client_id AS caller_client_id, c.auth_method AS caller_auth_method, c.secret_hash AS caller_secret_hash,
           c.project_id AS caller_project_id, cp.project_role_assertion AS caller_project_role_assertion,
           CASE WHEN c.auth_method = 'private_key_jwt' THEN
             (SELECT coalesce(json_agg(k.public_jwk ORDER BY k.created_at), '[]') FROM app_keys k
               WHERE k.app_id = c.id AND k.expires_at > now())
           END AS caller_keys
    FROM apps c JOIN projects cp ON cp.id = c.project_id AND cp.state = 'active'
    WHERE c.client_id = r.caller_id AND c.state = 'active'
    LIMIT 1 -- one row per key, looked up by index (access-tokens.ts)
  ) AS caller ON true`;

// oidc-provider's AccessToken rows (adapter.ts upsert), each written only while its credentials hold (GrantedOn).
// The writes of one event-loop turn go as one statement (platform/batch.ts); the check of each runs per row by
// index (LIMIT 1 keeps PostgreSQL from turning it into a join over all users, test/oidc/lookup-plans.test.ts).
export const INSERT_TOKENS = `
  WITH r AS (
    SELECT * FROM unnest($1::text[], $2::jsonb[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
      WITH ORDINALITY AS r(id, payload, ttl, user_id, token_type, secret_hash, key_id, i)
  ), written AS (
    INSERT INTO oidc_payloads (model, id, payload, expires_at)
    SELECT 'AccessToken', r.id, r.payload, now() + make_interval(secs => r.ttl)
    FROM r CROSS JOIN LATERAL (
      SELECT 1 FROM users u
      WHERE u.id = r.user_id AND u.type = 'machine' AND u.state = 'active' AND u.access_token_type = r.token_type
        AND EXISTS (SELECT 1 FROM orgs o WHERE o.id = u.org_id AND o.state = 'active')
        AND (r.secret_hash IS NULL OR u.secret_hash = r.secret_hash)
        AND (r.key_id IS NULL OR EXISTS (
          SELECT 1 FROM machine_keys k WHERE k.id = r.key_id AND k.user_id = u.id AND k.expires_at > now()))
      LIMIT 1
    ) AS holds
    RETURNING id
  )
  SELECT r.i FROM r JOIN written USING (id)`;

export type TokenRow = [
  id: string,
  payload: Omit<AccessTokenPayload & AdapterPayload, 'jti'>,
  ttl: number,
  userId: string,
  tokenType: string,
  secretHash: string | null,
  keyId: string | null,
];

// The token endpoint's fast path for codes and refresh tokens (fast/user-grants.ts), batched (platform/batch.ts): $1
// the model, $2 the storage id, $3 the client ID each request presents. The code or refresh token with its grant,
// the active app of that client ID and whether the token's user is active, each by one index lookup per key.
export const GRANT_SOURCES_SQL = `
  SELECT r.i, src.*, app.*, (SELECT u.state = 'active' FROM users u JOIN orgs o ON o.id = u.org_id
                               WHERE u.id = src.source_payload->>'accountId' LIMIT 1) AS user_active
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS r(model, id, client_id, i)
  LEFT JOIN LATERAL (
    SELECT t.payload AS source_payload, t.grant_id AS source_grant_id,
           (t.consumed_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())) AS source_usable,
           (SELECT g.payload FROM oidc_payloads g
             WHERE g.grant_id = t.grant_id AND g.model = 'Grant' AND (g.expires_at IS NULL OR g.expires_at > now())
             LIMIT 1) AS grant_payload
    FROM oidc_payloads t WHERE t.model = r.model AND t.id = r.id LIMIT 1
  ) src ON true
  LEFT JOIN LATERAL (
    SELECT a.secret_hash AS app_secret_hash, a.auth_method AS app_auth_method, a.grant_types AS app_grant_types,
           a.access_token_type AS app_access_token_type, a.id_token_userinfo_assertion AS app_userinfo_in_id_token,
           a.project_id AS app_project_id,
           (a.id_token_role_assertion OR a.access_token_role_assertion) AS app_role_assertion
    FROM apps a WHERE a.client_id = r.client_id AND a.state = 'active' LIMIT 1
  ) app ON true`;

export interface GrantSourceRow {
  /** Stored without its jti (payloads.ts storedPayload). */
  source_payload: Record<string, unknown> | null;
  source_grant_id: string | null;
  /** Not consumed and not expired. */
  source_usable: boolean | null;
  grant_payload: { accountId?: string; clientId?: string; openid?: { scope?: string }; rejected?: unknown } | null;
  app_secret_hash: string | null;
  app_auth_method: string | null;
  app_grant_types: string[] | null;
  app_access_token_type: 'opaque' | 'jwt' | null;
  app_userinfo_in_id_token: boolean | null;
  app_project_id: string | null;
  /** idTokenRoleAssertion or accessTokenRoleAssertion: its tokens may carry roles (token-claims.ts). */
  app_role_assertion: boolean | null;
  user_active: boolean | null;
}

// Redeems codes and refresh tokens (fast/user-grants.ts), batched: each source is consumed at most once
// (RFC 6749 §4.1.2; of two requests for one source in a batch the first wins) and only while its grant lives, and only
// a consumed source's tokens are written (its new refresh token, if any, and its access token). Returns the positions
// redeemed.
export const REDEEM_SQL = `
  WITH r AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::int[], $7::text[],
                         $8::jsonb[], $9::int[])
      WITH ORDINALITY AS r(model, id, grant_id, rt_id, rt_payload, rt_ttl, at_id, at_payload, at_ttl, i)
  ), consumed AS (
    UPDATE oidc_payloads t SET consumed_at = now()
    FROM (SELECT DISTINCT ON (model, id) * FROM r ORDER BY model, id, i) f
    WHERE t.model = f.model AND t.id = f.id AND t.consumed_at IS NULL
      AND (t.expires_at IS NULL OR t.expires_at > now())
      AND EXISTS (SELECT 1 FROM oidc_payloads g WHERE g.grant_id = f.grant_id AND g.model = 'Grant'
                   AND (g.expires_at IS NULL OR g.expires_at > now()))
    RETURNING f.*
  ), written AS (
    INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at)
    SELECT 'RefreshToken', rt_id, rt_payload, grant_id, now() + make_interval(secs => rt_ttl)
      FROM consumed WHERE rt_id IS NOT NULL
    UNION ALL
    SELECT 'AccessToken', at_id, at_payload, grant_id, now() + make_interval(secs => at_ttl) FROM consumed
  )
  SELECT i FROM consumed`;

export type RedeemRow = [
  model: string,
  id: string,
  grantId: string,
  refreshTokenId: string | null,
  refreshTokenPayload: Record<string, unknown> | null,
  refreshTokenTtl: number | null,
  accessTokenId: string,
  accessTokenPayload: Record<string, unknown>,
  accessTokenTtl: number,
];

/** A stored payload and when it was consumed, as the read-ahead returns it (JSON: the time as text). */
export interface PayloadWithConsumption {
  payload: AdapterPayload;
  consumed_at: string | null;
}

// The rows an authorization request reads (read-ahead.ts): $1 the storage id of its session, $2 of its interaction
// (resume), $3 its client ID (else the interaction's). The app and the user come whole, as JSON (their own reads
// return the same columns); the grant is the session's for this client.
export const READ_AHEAD_SQL = `
  WITH s AS (
    SELECT payload, consumed_at FROM oidc_payloads
     WHERE model = 'Session' AND id = $1 AND (expires_at IS NULL OR expires_at > now())
  ), i AS (
    SELECT payload, consumed_at FROM oidc_payloads
     WHERE model = 'Interaction' AND id = $2 AND (expires_at IS NULL OR expires_at > now())
  ), k AS (
    SELECT coalesce($3::text, (SELECT payload->'params'->>'client_id' FROM i)) AS client_id,
           coalesce((SELECT payload->'result'->'login'->>'accountId' FROM i),
                    (SELECT payload->>'accountId' FROM s)) AS account_id
  ), r AS (
    SELECT k.*, (SELECT payload->'authorizations'->k.client_id->>'grantId' FROM s) AS grant_id FROM k
  )
  SELECT r.client_id, r.account_id, r.grant_id,
         (SELECT to_jsonb(s) FROM s) AS session_row,
         (SELECT to_jsonb(i) FROM i) AS interaction_row,
         (SELECT to_jsonb(g) FROM (
            SELECT payload, consumed_at FROM oidc_payloads
             WHERE model = 'Grant' AND grant_id = r.grant_id AND (expires_at IS NULL OR expires_at > now())
             LIMIT 1) g) AS grant_row,
         (SELECT to_jsonb(x) FROM (
            SELECT ${APP_COLUMNS} FROM ${APPS_FROM} WHERE a.client_id = r.client_id
          ) x) AS app_row,
         (SELECT to_jsonb(x) FROM (
            SELECT ${USER_PROFILE_COLUMNS} FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = r.account_id
          ) x) AS account_row
  FROM r`;
