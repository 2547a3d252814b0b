import type { Queryable } from '../platform/db.ts';

export type StylingType = 'STYLING_TYPE_UNSPECIFIED' | 'STYLING_TYPE_GOOGLE';

export interface JwtIdpConfig {
  name: string;
  stylingType: StylingType;
  autoRegister: boolean;
  jwtEndpoint: string;
  issuer: string;
  keysEndpoint: string;
  headerName: string;
}

export interface IdpRow {
  id: string;
  instance_id: string;
  type: 'jwt';
  state: 'active' | 'inactive';
  name: string;
  styling_type: StylingType;
  auto_register: boolean;
  jwt_endpoint: string;
  issuer: string;
  keys_endpoint: string;
  header_name: string;
  created_at: Date;
  changed_at: Date;
  sequence: string;
}

/** The columns UpdateIDP and UpdateIDPJWTConfig change. */
export type ChangeableColumn =
  | 'name'
  | 'styling_type'
  | 'auto_register'
  | 'jwt_endpoint'
  | 'issuer'
  | 'keys_endpoint'
  | 'header_name';
export type IdpColumnChange = Partial<Record<ChangeableColumn, string | boolean>>;

/** The columns of IdpRow, of the table aliased `i`. */
export const IDP_COLUMNS = `i.id, i.instance_id, i.type, i.state, i.name, i.styling_type, i.auto_register,
  i.jwt_endpoint, i.issuer, i.keys_endpoint, i.header_name, i.created_at, i.changed_at, i.sequence`;

export async function insertJwtIdp(
  tx: Queryable,
  idp: JwtIdpConfig & { id: string; instanceId: string; sequence: string; createdAt: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO idps (id, instance_id, type, name, styling_type, auto_register, jwt_endpoint, issuer, keys_endpoint,
       header_name, sequence, created_at, changed_at)
     VALUES ($1, $2, 'jwt', $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
    [
      idp.id,
      idp.instanceId,
      idp.name,
      idp.stylingType,
      idp.autoRegister,
      idp.jwtEndpoint,
      idp.issuer,
      idp.keysEndpoint,
      idp.headerName,
      idp.sequence,
      idp.createdAt,
    ],
  );
}

/** `forUpdate`: locked for a change in the caller's transaction. */
export async function findIdpById(db: Queryable, id: string, forUpdate = false): Promise<IdpRow | undefined> {
  const lock = forUpdate ? ' FOR UPDATE' : '';
  const { rows } = await db.query<IdpRow>(`SELECT ${IDP_COLUMNS} FROM idps i WHERE i.id = $1${lock}`, [id]);
  return rows[0];
}

/** Sets the given columns (names from the code, values as parameters) with the change's event. */
export async function updateIdpColumns(
  tx: Queryable,
  id: string,
  columns: IdpColumnChange,
  event: { sequence: string; createdAt: Date },
): Promise<void> {
  const entries = Object.entries(columns);
  const sets = entries.map(([column], i) => `${column} = $${i + 4}`);
  await tx.query(`UPDATE idps SET ${['sequence = $2', 'changed_at = $3', ...sets].join(', ')} WHERE id = $1`, [
    id,
    event.sequence,
    event.createdAt,
    ...entries.map(([, value]) => value),
  ]);
}

/** Removes the IdP; its users' links and its place on the login policy go with it (ON DELETE CASCADE). */
export async function deleteIdp(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM idps WHERE id = $1', [id]);
}

/** The active IdPs on the instance's login policy, in the order they were put there: the login page's "Continue with"
 *  buttons. The page reads the same rows within its read-ahead statement (login/page-read-ahead.ts); this is the
 *  reading without it. */
export async function listLoginIdps(db: Queryable, instanceId: string): Promise<IdpRow[]> {
  const { rows } = await db.query<IdpRow>(
    `SELECT ${IDP_COLUMNS} FROM login_policy_idps p JOIN idps i ON i.id = p.idp_id
      WHERE p.instance_id = $1 AND i.state = 'active' ORDER BY p.created_at, i.id`,
    [instanceId],
  );
  return rows;
}

/** The IdP, if it is one of the instance's and on its login policy (whatever its state). */
export async function findLoginIdp(db: Queryable, instanceId: string, idpId: string): Promise<IdpRow | undefined> {
  const { rows } = await db.query<IdpRow>(
    `SELECT ${IDP_COLUMNS} FROM login_policy_idps p JOIN idps i ON i.id = p.idp_id
      WHERE p.instance_id = $1 AND p.idp_id = $2`,
    [instanceId, idpId],
  );
  return rows[0];
}
