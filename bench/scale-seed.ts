// A database the size of a large deployment (LARGE_DEPLOYMENT below), seeded in SQL
// (INSERT ... SELECT generate_series, in batches) so that ten million rows take minutes, not hours. The rows are those
// Gatehouse itself writes: the same tables, an event per org, user, project and app (the sequence each row names),
// and oidc_payloads rows shaped as oidc-provider's adapter stores them (src/oidc/provider/adapter.ts: storage ids are
// SHA-256 hashes, payloads without their jti). Seeded IDs are 19-digit decimals like newId()'s, with a prefix per kind
// (seededId) that newId() cannot produce for centuries, so callers can name seeded rows without reading them back.
import type { Db, Queryable } from '../src/platform/db.ts';
import { hashPassword } from '../src/users/passwords.ts';

export interface ScaleSize {
  orgs: number;
  /** Human users, spread evenly over the orgs. */
  users: number;
  /** OIDC web apps, one project each, spread evenly over the orgs. */
  apps: number;
  /** oidc_payloads rows: each grant of a user to an app of the user's org has ROWS_PER_GRANT rows, half expired. */
  tokens: number;
}

/** A large deployment: 1,000 orgs, 1,000,000 users, 10,000 apps, 10,000,000 token rows of which half are expired. */
export const LARGE_DEPLOYMENT: ScaleSize = { orgs: 1000, users: 1_000_000, apps: 10_000, tokens: 10_000_000 };

/** The password of every seeded user (they share one argon2id hash, made once at the current cost). */
export const SEEDED_PASSWORD = 'Scale-Password-1';

const PREFIX = { org: 91, user: 92, project: 93, app: 94 } as const;

/** The ID of the n-th (1-based) seeded org, user, project or app. */
export function seededId(kind: keyof typeof PREFIX, n: number): string {
  return `${PREFIX[kind]}${String(n).padStart(17, '0')}`;
}
const sqlId = (kind: keyof typeof PREFIX, n: string) => `('${PREFIX[kind]}' || lpad((${n})::text, 17, '0'))`;

/** The org of the n-th seeded user. */
export const orgOfSeededUser = (n: number, size: ScaleSize) => 1 + ((n - 1) % size.orgs);
export const seededUserName = (n: number) => `scale-user-${n}`;

/** A seeded user at random, with its org: reads spread over all users, not one hot row. */
export function randomSeededUser(size: ScaleSize): { id: string; userName: string; orgId: string } {
  const n = 1 + Math.floor(Math.random() * size.users);
  return { id: seededId('user', n), userName: seededUserName(n), orgId: seededId('org', orgOfSeededUser(n, size)) };
}

/**
 * The rows of one grant, in this order: its Session and Grant, the consumed AuthorizationCode, four AccessTokens
 * and three RefreshTokens of a rotation chain. Expired (ready for the background sweep): the code, three access
 * tokens and the first refresh token of the chain, so half of all rows.
 */
export const ROWS_PER_GRANT = 10;
const EXPIRED_KINDS = [2, 3, 4, 5, 7];
export const expiredRows = (size: ScaleSize) =>
  Math.floor(size.tokens / ROWS_PER_GRANT) * EXPIRED_KINDS.length +
  EXPIRED_KINDS.filter((k) => k < size.tokens % ROWS_PER_GRANT).length;

export interface SeedReport {
  size: ScaleSize;
  /** Seconds: the inserts and index builds (one transaction), then VACUUM ANALYZE. */
  loadSeconds: number;
  vacuumSeconds: number;
}

const BATCH = 250_000;

/**
 * Seeds `size` into a migrated database in one transaction (all or nothing), then VACUUM ANALYZE and CHECKPOINT: a
 * freshly loaded database without statistics plans token lookups badly (~5 ms instead of ~0.1 ms). oidc_payloads'
 * indexes are dropped for the load and rebuilt from their own definitions afterwards, as pg_restore does: building an
 * index once is several times faster than maintaining it through ten million random inserts.
 */
export async function seedScale(
  db: Pick<Db, 'session'>,
  size: ScaleSize,
  progress: (what: string) => void = () => {},
): Promise<SeedReport> {
  const passwordHash = await hashPassword(SEEDED_PASSWORD);
  const session = await db.session();
  try {
    const started = performance.now();
    await session.query('BEGIN');
    try {
      await session.query("SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '256MB'");
      await seedDirectory(session, size, passwordHash, progress);
      await withoutIndexes(session, 'oidc_payloads', async () => {
        for (let from = 0; from < size.tokens; from += BATCH) {
          await session.query(INSERT_PAYLOADS, [from, Math.min(size.tokens, from + BATCH) - 1, ...sizeParams(size)]);
          progress(`oidc_payloads: ${Math.min(size.tokens, from + BATCH)} of ${size.tokens}`);
        }
        progress('oidc_payloads: rebuilding indexes');
      });
      await session.query('COMMIT');
    } catch (error) {
      await session.query('ROLLBACK');
      throw error;
    }
    const loaded = performance.now();
    progress('VACUUM ANALYZE');
    await session.query('SET statement_timeout = 0');
    await session.query('VACUUM ANALYZE orgs, org_domains, users, projects, apps, events, oidc_payloads');
    // The load leaves gigabytes of dirty pages; the checkpoint that writes them would otherwise fall into the
    // measurements, and its fsync once stalled one commit of test/production/user-artifacts-at-scale for 1.7 s.
    // CHECKPOINT needs a superuser or pg_checkpoint (.ci/run grants it); without either the seed goes on without.
    const { rows } = await session.query<{ allowed: boolean }>(
      "SELECT pg_has_role('pg_checkpoint', 'USAGE') AS allowed",
    );
    if (rows[0]!.allowed) await session.query('CHECKPOINT');
    else progress('CHECKPOINT skipped (the role lacks pg_checkpoint): a checkpoint may fall into the measurements');
    await session.query('RESET statement_timeout');
    return {
      size,
      loadSeconds: (loaded - started) / 1000,
      vacuumSeconds: (performance.now() - loaded) / 1000,
    };
  } finally {
    session.release();
  }
}

const sizeParams = (s: ScaleSize) => [s.orgs, s.users, s.apps];

/** Orgs, their domains, users, projects and apps, each with the event Gatehouse appends for it. */
async function seedDirectory(
  tx: Queryable,
  size: ScaleSize,
  passwordHash: string,
  progress: (what: string) => void,
): Promise<void> {
  const { rows } = await tx.query<{ base: string }>('SELECT coalesce(max(sequence), 0)::text AS base FROM events');
  // Event sequences are assigned arithmetically: 2 per org, then 1 per user, then 2 per app (project and app).
  const base = Number(rows[0]!.base);
  const userBase = base + 2 * size.orgs;
  const appBase = userBase + size.users;
  await tx.query(INSERT_ORGS, [size.orgs, base]);
  for (let from = 1; from <= size.users; from += BATCH) {
    await tx.query(INSERT_USERS, [from, Math.min(size.users, from + BATCH - 1), size.orgs, userBase, passwordHash]);
    progress(`users: ${Math.min(size.users, from + BATCH - 1)} of ${size.users}`);
  }
  await tx.query(INSERT_APPS, [size.apps, size.orgs, appBase]);
  await tx.query("SELECT setval(pg_get_serial_sequence('events', 'sequence'), $1)", [appBase + 2 * size.apps]);
}

const ORG_ID = sqlId('org', 'o');
const INSERT_ORGS = `
  WITH o AS (SELECT o, ${ORG_ID} AS id, 'scale-org-' || o || '.example.test' AS domain
             FROM generate_series(1, $1::int) AS o),
  orgs AS (INSERT INTO orgs (id, name, primary_domain, sequence)
           SELECT id, 'Scale Org ' || o, domain, $2 + 2 * o FROM o),
  domains AS (INSERT INTO org_domains (domain, org_id, is_primary, is_verified) SELECT domain, id, true, true FROM o)
  INSERT INTO events (sequence, aggregate_type, aggregate_id, event_type, payload, resource_owner, creator)
  SELECT $2 + 2 * o - 1, 'org', id, 'org.added', jsonb_build_object('name', 'Scale Org ' || o), id, 'SYSTEM' FROM o
  UNION ALL
  SELECT $2 + 2 * o, 'org', id, 'org.domain.added', jsonb_build_object('domain', domain, 'primary', true), id, 'SYSTEM'
  FROM o`;

// $1..$2 the users, $3 orgs, $4 the sequence before the first user's event, $5 the shared password hash.
const INSERT_USERS = `
  WITH u AS (SELECT u, ${sqlId('user', 'u')} AS id, ${sqlId('org', '1 + (u - 1) % $3::int')} AS org_id,
                    'scale-user-' || u AS user_name, 'User ' || u AS last_name,
                    'scale-user-' || u || '@example.test' AS email
             FROM generate_series($1::int, $2::int) AS u),
  users AS (
    INSERT INTO users (id, org_id, type, user_name, first_name, last_name, nick_name, display_name, preferred_language,
                       gender, email, email_verified, password_hash, sequence)
    SELECT id, org_id, 'human', user_name, 'Scale', last_name, '', 'Scale ' || last_name, 'en', 'GENDER_UNSPECIFIED',
           email, true, $5, $4 + u
    FROM u)
  INSERT INTO events (sequence, aggregate_type, aggregate_id, event_type, payload, resource_owner, creator)
  SELECT $4 + u, 'user', id, 'user.human.added',
         jsonb_build_object('email', email, 'phone', null, 'userName', user_name, 'hasPassword', true,
           'emailVerified', true, 'phoneVerified', false,
           'profile', jsonb_build_object('gender', 'GENDER_UNSPECIFIED', 'lastName', last_name, 'nickName', '',
             'firstName', 'Scale', 'displayName', 'Scale ' || last_name, 'preferredLanguage', 'en')),
         org_id, 'SYSTEM'
  FROM u`;

// One project per app; $1 apps, $2 orgs, $3 the sequence before the first project's event.
const INSERT_APPS = `
  WITH p AS (SELECT p, ${sqlId('project', 'p')} AS project_id, ${sqlId('app', 'p')} AS app_id,
                    ${sqlId('org', '1 + (p - 1) % $2::int')} AS org_id,
                    'https://app-' || p || '.example.test/callback' AS redirect_uri
             FROM generate_series(1, $1::int) AS p),
  projects AS (INSERT INTO projects (id, org_id, name, sequence) SELECT project_id, org_id, 'Scale Project ' || p,
               $3 + 2 * p - 1 FROM p),
  apps AS (
    INSERT INTO apps (id, project_id, name, kind, client_id, secret_hash, auth_method, app_type, redirect_uris,
                      response_types, grant_types, sequence)
    SELECT app_id, project_id, 'scale-app-' || p, 'oidc', app_id || '@' || project_id,
           'hmac-sha256:' || encode(sha256(app_id::bytea), 'hex'), 'basic', 'web', ARRAY[redirect_uri], ARRAY['code'],
           ARRAY['authorization_code', 'refresh_token'], $3 + 2 * p
    FROM p)
  INSERT INTO events (sequence, aggregate_type, aggregate_id, event_type, payload, resource_owner, creator)
  SELECT $3 + 2 * p - 1, 'project', project_id, 'project.added', jsonb_build_object('name', 'Scale Project ' || p),
         org_id, 'SYSTEM'
  FROM p
  UNION ALL
  SELECT $3 + 2 * p, 'project', project_id, 'project.application.added',
         jsonb_build_object('kind', 'oidc', 'name', 'scale-app-' || p, 'appId', app_id, 'appType', 'web',
           'devMode', false, 'clientId', app_id || '@' || project_id, 'authMethod', 'basic',
           'grantTypes', jsonb_build_array('authorization_code', 'refresh_token'),
           'redirectUris', jsonb_build_array(redirect_uri), 'responseTypes', jsonb_build_array('code'),
           'accessTokenType', 'opaque', 'postLogoutRedirectUris', jsonb_build_array(),
           'idTokenUserinfoAssertion', false),
         org_id, 'SYSTEM'
  FROM p`;

// A 43-character base64url SHA-256, the shape of storage ids (payloads.ts hashId) and of oidc-provider's random ids.
const b64 = (text: string) =>
  `translate(rtrim(encode(sha256(convert_to(${text}, 'UTF8')), 'base64'), '='), '+/', '-_')`;

// $1..$2 the rows (0-based), $3 orgs, $4 users, $5 apps. Row r belongs to grant g = r / 10 of user 1 + g % users,
// to an app of that user's org; k = r % 10 is its kind (ROWS_PER_GRANT). Live rows were issued within the last hour,
// expired ones a day or two before their lifetime ended. A Grant's row id is the hash of its grant id (adapter.ts).
const INSERT_PAYLOADS = `
  WITH g AS (
    SELECT g, ${b64("'grant-' || g")} AS grant_id, ${b64("'session-' || g")} AS session_uid,
           ${b64("'sid-' || g")} AS sid, ${sqlId('user', '1 + g % $4::int')} AS account_id,
           ${sqlId('app', 'a')} || '@' || ${sqlId('project', 'a')} AS client_id,
           'https://app-' || a || '.example.test/callback' AS redirect_uri
    FROM generate_series($1::bigint / 10, $2::bigint / 10) AS g
    CROSS JOIN LATERAL (SELECT 1 + ((g % $4::int) % $3::int
                                    + $3::int * ((g / $3::int) % greatest(1, $5::int / $3::int))) % $5::int AS a) AS app
  ), r AS (
    SELECT g.*, g * 10 + m.k AS r, m.*,
           extract(epoch FROM now())::bigint
             - CASE WHEN m.k IN (${EXPIRED_KINDS}) THEN m.ttl + 86400 + g % 86400 ELSE g % 3600 END AS iat
    FROM g CROSS JOIN LATERAL (SELECT k,
      (ARRAY['Session', 'Grant', 'AuthorizationCode', 'AccessToken', 'AccessToken', 'AccessToken', 'AccessToken',
             'RefreshToken', 'RefreshToken', 'RefreshToken'])[k + 1] AS model,
      (ARRAY[86400, 7776000, 60, 43200, 43200, 43200, 43200, 2592000, 2592000, 2592000])[k + 1] AS ttl
      FROM generate_series(0, 9) AS k) AS m
    WHERE g * 10 + m.k BETWEEN $1 AND $2
  ), p AS (
    SELECT r.*, CASE WHEN model = 'Grant' THEN ${b64('grant_id')} ELSE ${b64("'token-' || r")} END AS id,
           k IN (2, 7, 8) AS consumed, k - 7 AS rotations,
           jsonb_build_object('iat', iat, 'exp', iat + ttl, 'kind', model, 'accountId', account_id) AS common
    FROM r
  )
  INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, expires_at, consumed_at, updated_at)
  SELECT model, id,
    common || CASE model
      WHEN 'Session' THEN jsonb_build_object('amr', jsonb_build_array('pwd'), 'uid', session_uid, 'loginTs', iat,
        'authorizations', jsonb_build_object(client_id, jsonb_build_object(
          'sid', sid, 'grantId', grant_id, 'persistsLogout', true)))
      WHEN 'Grant' THEN jsonb_build_object('clientId', client_id,
        'openid', jsonb_build_object('scope', 'openid offline_access'))
      WHEN 'AuthorizationCode' THEN jsonb_build_object('amr', jsonb_build_array('pwd'),
        'scope', 'openid offline_access', 'grantId', grant_id, 'authTime', iat, 'clientId', client_id,
        'sessionUid', session_uid, 'redirectUri', redirect_uri, 'codeChallenge', ${b64("'challenge-' || r")},
        'codeChallengeMethod', 'S256')
      WHEN 'AccessToken' THEN jsonb_build_object('gty', 'authorization_code refresh_token',
        'extra', jsonb_build_object('auth_time', iat), 'scope', 'openid offline_access', 'grantId', grant_id,
        'clientId', client_id, 'sessionUid', session_uid)
      ELSE jsonb_build_object('amr', jsonb_build_array('pwd'), 'gty', 'authorization_code refresh_token',
        'iiat', iat, 'scope', 'openid offline_access', 'grantId', grant_id, 'authTime', iat, 'clientId', client_id,
        'rotations', rotations, 'sessionUid', session_uid)
    END,
    CASE WHEN model = 'Session' THEN NULL ELSE grant_id END,
    CASE WHEN model = 'Session' THEN session_uid END,
    to_timestamp(iat + ttl),
    CASE WHEN consumed THEN to_timestamp(iat + 1) END,
    to_timestamp(iat)
  FROM p`;

/**
 * Runs `load` with the table's indexes (its primary key included) dropped, then builds them again from the
 * definitions they had; inside the caller's transaction, so a failure leaves them as they were.
 */
async function withoutIndexes(tx: Queryable, table: string, load: () => Promise<void>): Promise<void> {
  const { rows } = await tx.query<{ name: string; constraint_def: string | null; index_def: string }>(
    `SELECT i.relname AS name, pg_get_constraintdef(c.oid) AS constraint_def, pg_get_indexdef(i.oid) AS index_def
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
     WHERE x.indrelid = $1::regclass`,
    [table],
  );
  for (const index of rows)
    await tx.query(
      index.constraint_def ? `ALTER TABLE ${table} DROP CONSTRAINT ${index.name}` : `DROP INDEX ${index.name}`,
    );
  await load();
  for (const index of rows)
    await tx.query(
      index.constraint_def
        ? `ALTER TABLE ${table} ADD CONSTRAINT ${index.name} ${index.constraint_def}`
        : index.index_def,
    );
}
