// The fast path's SQL (issue 14 §2): the statements introspection, userinfo, the management API's bearer check and
// the machine grants run on every request. Hot paths, so each joins what it needs from users, orgs and apps in one
// statement rather than reading those domains through their services (one round trip per request, shared by
// concurrent requests: platform/batch.ts); test/oidc/lookup-plans.test.ts holds each to index lookups.
import type { JSONWebKeySet } from 'jose';
import type { AdapterPayload } from 'oidc-provider';
import type { AppType } from '../apps/queries.ts';
import { USER_PROFILE_COLUMNS, type UserProfileRow } from '../users/queries.ts';
import type { AccessTokenPayload } from './payloads.ts';

/**
 * One access token row joined to everything that decides whether it is active. `storageId` is the SQL expression of
 * the row's id (hashId of the token's jti). Columns are prefixed, so the lookup can sit next to others (introspection
 * joins its caller into the same statement). LIMIT 1 says what the primary key already guarantees, and keeps
 * PostgreSQL from flattening the lookup, run once per key of a batch, into joins across the batch: those scan users
 * and orgs whole, and when both grew after the plan was made (the benchmark's SetUpOrg run) a lookup took a second.
 * test/oidc/lookup-plans.test.ts holds the plan to one index lookup per key.
 */
export const accessTokenLookup = (storageId: string) => `
  SELECT t.payload AS token_payload, g.payload AS grant_payload, s.payload AS session_payload,
         a.project_id AS app_project_id, a.redirect_uris AS app_redirect_uris, a.dev_mode AS app_dev_mode, a.app_type AS app_app_type,
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

// Concurrent lookups share one statement (platform/batch.ts); $1 holds their storage ids.
export const ACCESS_TOKENS_SQL = `
  SELECT r.i, tok.* FROM unnest($1::text[]) WITH ORDINALITY AS r(id, i)
  JOIN LATERAL (${accessTokenLookup('r.id')}) AS tok ON true`;

export interface IntrospectionRow extends AccessTokenRow {
  caller_client_id: string | null;
  caller_auth_method: string | null;
  caller_secret_hash: string | null;
  caller_project_id: string | null;
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
           c.project_id AS caller_project_id,
           CASE WHEN c.auth_method = 'private_key_jwt' THEN
             (SELECT coalesce(json_agg(k.public_jwk ORDER BY k.created_at), '[]') FROM app_keys k WHERE k.app_id = c.id AND k.expires_at > now())
           END AS caller_keys
    FROM apps c WHERE c.client_id = r.caller_id AND c.state = 'active'
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
        AND (r.secret_hash IS NULL OR u.secret_hash = r.secret_hash)
        AND (r.key_id IS NULL OR EXISTS (SELECT 1 FROM machine_keys k WHERE k.id = r.key_id AND k.user_id = u.id AND k.expires_at > now()))
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
