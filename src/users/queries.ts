import type { Queryable } from '../platform/db.ts';

export type Gender = 'GENDER_UNSPECIFIED' | 'GENDER_FEMALE' | 'GENDER_MALE' | 'GENDER_DIVERSE';

export interface HumanProfile {
  firstName: string;
  lastName: string;
  nickName: string;
  displayName: string;
  preferredLanguage: string;
  gender: Gender;
}

export interface UserRow {
  id: string;
  org_id: string;
  type: 'human' | 'machine';
  user_name: string;
  state: 'active' | 'inactive' | 'locked';
  first_name: string | null;
  last_name: string | null;
  nick_name: string | null;
  display_name: string | null;
  preferred_language: string | null;
  gender: Gender | null;
  email: string | null;
  email_verified: boolean;
  phone: string | null;
  phone_verified: boolean;
  password_hash: string | null;
  machine_name: string | null;
  machine_description: string | null;
  access_token_type: 'opaque' | 'jwt';
  secret_hash: string | null;
  /** The user must choose a new password at the next sign-in. */
  password_change_required: boolean;
  /** The kinds of second factor the user has ready (second-factors/registry.ts). */
  factor_kinds: string[];
  created_at: Date;
  changed_at: Date;
  sequence: string;
  /** The org's primary domain: login names are user_name@primary_domain, as in ZITADEL. */
  primary_domain: string;
  /** The org's name, for the urn:zitadel:iam:user:resourceowner claims. */
  org_name: string;
  /** The org's state: the users of a deactivated org are not active either (users/lookup.ts isActive). */
  org_state: 'active' | 'inactive';
}

/** A user without its credential hashes: what a token stands for, and what claims are made of. */
export type UserProfileRow = Omit<
  UserRow,
  'password_hash' | 'secret_hash' | 'password_change_required' | 'factor_kinds'
>;

/**
 * The columns of a UserProfileRow (users u JOIN orgs o), for reads that join a user to other rows: token lookups
 * (oidc/access-tokens.ts) have no use for the hashes. Named, not u.*: these reads are prepared statements
 * (src/platform/db.ts), which a new column must not break.
 */
export const USER_PROFILE_COLUMNS =
  `u.id, u.org_id, u.type, u.user_name, u.state, u.first_name, u.last_name, ` +
  `u.nick_name,
  u.display_name, u.preferred_language, u.gender, u.email, u.email_verified, u.phone, u.phone_verified, u.machine_name,
  u.machine_description, u.access_token_type, u.created_at, u.changed_at, u.sequence, o.primary_domain, ` +
  `o.name AS org_name, o.state AS org_state`;

const USER_CREDENTIAL_COLUMNS = 'u.password_hash, u.secret_hash, u.password_change_required, u.factor_kinds';
/** Every column of a UserRow (users u JOIN orgs o). */
export const USER_COLUMNS = `${USER_PROFILE_COLUMNS}, ${USER_CREDENTIAL_COLUMNS}`;

const SELECT_USER = `SELECT ${USER_COLUMNS} FROM users u JOIN orgs o ON o.id = u.org_id`;

// Concurrent lookups by ID share one statement (platform/batch.ts); $1 holds their ids.
export const USERS_BY_ID_SQL = `
  SELECT r.i, u.* FROM unnest($1::text[]) WITH ORDINALITY AS r(id, i)
  JOIN LATERAL (${SELECT_USER} WHERE u.id = r.id LIMIT 1) AS u ON true`;

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.id = $1`, [id]);
  return rows[0];
}

/** What the password sign-in needs of the login policy, read with the user rather than in a statement of
 *  its own (login-queries.test.ts); the defaults when no policy was set (login-policy/policy.ts). */
const LOGIN_POLICY_COLUMNS =
  'coalesce((SELECT force_mfa FROM login_policy), false) AS policy_force_mfa, ' +
  'coalesce((SELECT allow_username_password FROM login_policy), true) AS policy_allow_password';

/**
 * The user a login name denotes, never ambiguously: when the part after the last `@`
 * is an organization's domain, the name is `user name@org domain` and only that org's user of that user name
 * answers; otherwise the whole text is a user name. So a user name such as `admin@<org domain>` (refused since,
 * user-name.ts, but possibly stored by an older version) never shadows the org's `admin`. The placeholders of the
 * whole name, the part before the last `@` and the part after it ('' without `@`, which is no domain:
 * loginNameParts).
 */
export const userByLoginName = (whole: string, local: string, domain: string) => `
  WITH d AS (SELECT org_id FROM org_domains WHERE lower(domain) = lower(${domain}) LIMIT 1)
  SELECT ${USER_COLUMNS}, ${LOGIN_POLICY_COLUMNS} FROM users u JOIN orgs o ON o.id = u.org_id
  WHERE lower(u.user_name) = lower(CASE WHEN EXISTS (SELECT 1 FROM d) THEN ${local} ELSE ${whole} END)
    AND (NOT EXISTS (SELECT 1 FROM d) OR u.org_id = (SELECT org_id FROM d))`;

const FIND_BY_LOGIN_NAME = userByLoginName('$1', '$2', '$3');

/** The parameters of userByLoginName: the whole name, the part before the last `@`, the part after it. */
export function loginNameParts(loginName: string): [whole: string, local: string, domain: string] {
  const at = loginName.lastIndexOf('@');
  return at < 0 ? [loginName, loginName, ''] : [loginName, loginName.slice(0, at), loginName.slice(at + 1)];
}

export interface SignInUserRow extends UserRow {
  policy_force_mfa: boolean;
  policy_allow_password: boolean;
}

export async function findUserByLoginName(db: Queryable, loginName: string): Promise<SignInUserRow | undefined> {
  const { rows } = await db.query<SignInUserRow>(FIND_BY_LOGIN_NAME, loginNameParts(loginName));
  return rows[0];
}

/** Whether a user name is taken (users_user_name_unique: case-insensitive, across the instance). A cheap check
 *  before the slow password hash; the constraint still decides a race. */
export async function userNameTaken(db: Queryable, userName: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE lower(user_name) = lower($1)', [userName]);
  return rows.length > 0;
}

/** IsUserUnique: no user of the instance has the user name, and no user of the org the e-mail (either may be
 *  empty: not asked). users_user_name_unique and users_org_email_idx answer it. */
export async function isUserUnique(db: Queryable, orgId: string, userName: string, email: string): Promise<boolean> {
  const { rows } = await db.query<{ unique: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM users WHERE $1 <> '' AND lower(user_name) = lower($1))
        AND NOT EXISTS (SELECT 1 FROM users WHERE $2 <> '' AND org_id = $3 AND lower(email) = lower($2)) AS unique`,
    [userName, email, orgId],
  );
  return rows[0]!.unique;
}

/** Whether a domain is, or may become, part of login names: an org's domain, the instance domain or under it. */
export async function isLoginDomain(db: Queryable, domain: string): Promise<boolean> {
  const { rows } = await db.query<{ taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM org_domains WHERE lower(domain) = lower($1))
         OR EXISTS (SELECT 1 FROM instance i WHERE lower($1) = lower(i.domain) ` +
      `OR right(lower($1), length(i.domain) + 1) = '.' || lower(i.domain)) AS taken`,
    [domain],
  );
  return rows[0]!.taken;
}

export interface NewHuman {
  id: string;
  orgId: string;
  userName: string;
  profile: HumanProfile;
  email: string;
  emailVerified: boolean;
  phone: string | null;
  phoneVerified: boolean;
  passwordHash: string | null;
  sequence: string;
}

export async function insertHuman(tx: Queryable, u: NewHuman): Promise<void> {
  await tx.query(
    `INSERT INTO users (id, org_id, type, user_name, first_name, last_name, nick_name, display_name, preferred_language,
       gender, email, email_verified, phone, phone_verified, password_hash, sequence)
     VALUES ($1, $2, 'human', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      u.id,
      u.orgId,
      u.userName,
      u.profile.firstName,
      u.profile.lastName,
      u.profile.nickName,
      u.profile.displayName,
      u.profile.preferredLanguage,
      u.profile.gender,
      u.email,
      u.emailVerified,
      u.phone,
      u.phoneVerified,
      u.passwordHash,
      u.sequence,
    ],
  );
}

export interface NewMachine {
  id: string;
  orgId: string;
  userName: string;
  name: string;
  description: string;
  accessTokenType: 'opaque' | 'jwt';
  sequence: string;
}

export async function insertMachine(tx: Queryable, m: NewMachine): Promise<void> {
  await tx.query(
    `INSERT INTO users (id, org_id, type, user_name, machine_name, machine_description, access_token_type, sequence)
     VALUES ($1, $2, 'machine', $3, $4, $5, $6, $7)`,
    [m.id, m.orgId, m.userName, m.name, m.description, m.accessTokenType, m.sequence],
  );
}

export async function updateHumanProfile(
  tx: Queryable,
  id: string,
  p: HumanProfile,
  sequence: string,
  changedAt: Date,
): Promise<void> {
  await tx.query(
    `UPDATE users SET first_name = $2, last_name = $3, nick_name = $4, display_name = $5, preferred_language = $6,
       gender = $7, sequence = $8, changed_at = $9 WHERE id = $1`,
    [id, p.firstName, p.lastName, p.nickName, p.displayName, p.preferredLanguage, p.gender, sequence, changedAt],
  );
}

export async function insertMachineKey(
  tx: Queryable,
  k: { id: string; userId: string; publicJwk: object; expiresAt: Date },
): Promise<void> {
  await tx.query('INSERT INTO machine_keys (id, user_id, public_jwk, expires_at) VALUES ($1, $2, $3, $4)', [
    k.id,
    k.userId,
    k.publicJwk,
    k.expiresAt,
  ]);
}

/** An active machine user with its unexpired public keys as a JWK set (kid = key ID), in one query. */
export async function findActiveMachineWithKeys(
  db: Queryable,
  by: { id: string } | { userName: string },
): Promise<(UserRow & { jwks: Array<Record<string, unknown>> }) | undefined> {
  const { rows } = await db.query<UserRow & { jwks: Array<Record<string, unknown>> }>(
    `${SELECT_USER_WITH_KEYS} WHERE ${'id' in by ? 'u.id = $1' : 'lower(u.user_name) = lower($1)'} ` +
      `AND u.type = 'machine' AND u.state = 'active' AND o.state = 'active'`,
    ['id' in by ? by.id : by.userName],
  );
  return rows[0];
}

const SELECT_USER_WITH_KEYS = `SELECT ${USER_COLUMNS},
  (SELECT coalesce(jsonb_agg(k.public_jwk || jsonb_build_object('kid', k.id) ORDER BY k.created_at), '[]')
   FROM machine_keys k WHERE k.user_id = u.id AND k.expires_at > now()) AS jwks
  FROM users u JOIN orgs o ON o.id = u.org_id`;

export async function updateMachineSecret(
  tx: Queryable,
  id: string,
  secretHash: string | null,
  sequence: string,
  changedAt: Date,
): Promise<void> {
  await tx.query('UPDATE users SET secret_hash = $2, sequence = $3, changed_at = $4 WHERE id = $1', [
    id,
    secretHash,
    sequence,
    changedAt,
  ]);
}

/** The user row locked for a state change (concurrent changes of one user serialise). */
export async function lockUser(
  tx: Queryable,
  id: string,
): Promise<Pick<UserRow, 'id' | 'org_id' | 'state'> | undefined> {
  const { rows } = await tx.query<Pick<UserRow, 'id' | 'org_id' | 'state'>>(
    'SELECT id, org_id, state FROM users WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0];
}

export async function setUserState(
  tx: Queryable,
  id: string,
  state: UserRow['state'],
  sequence: string,
  changedAt: Date,
): Promise<void> {
  await tx.query('UPDATE users SET state = $2, sequence = $3, changed_at = $4 WHERE id = $1', [
    id,
    state,
    sequence,
    changedAt,
  ]);
}

/** Columns a user update may set (update.ts): the keys are trusted column names, never a request's. */
export type UserColumns = Partial<
  Pick<
    UserRow,
    | 'user_name'
    | 'first_name'
    | 'last_name'
    | 'nick_name'
    | 'display_name'
    | 'preferred_language'
    | 'gender'
    | 'email'
    | 'email_verified'
    | 'phone'
    | 'phone_verified'
    | 'machine_name'
    | 'machine_description'
    | 'access_token_type'
    | 'secret_hash'
  >
>;

export async function updateUserColumns(
  tx: Queryable,
  id: string,
  columns: UserColumns,
  sequence: string,
  changedAt: Date,
): Promise<void> {
  const names = Object.keys(columns);
  const sets = names.map((name, i) => `${name} = $${i + 4}`);
  await tx.query(`UPDATE users SET ${[...sets, 'sequence = $2', 'changed_at = $3'].join(', ')} WHERE id = $1`, [
    id,
    sequence,
    changedAt,
    ...Object.values(columns),
  ]);
}

export async function deleteUser(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM users WHERE id = $1', [id]);
}

/** Deletes a key of the machine user; false when it has no such key. */
export async function deleteMachineKey(tx: Queryable, userId: string, keyId: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM machine_keys WHERE id = $1 AND user_id = $2', [keyId, userId]);
  return rowCount === 1;
}
