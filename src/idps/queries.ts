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

const COLUMNS = `id, instance_id, type, state, name, styling_type, auto_register, jwt_endpoint, issuer, keys_endpoint,
  header_name, created_at, changed_at, sequence`;

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
  const { rows } = await db.query<IdpRow>(`SELECT ${COLUMNS} FROM idps WHERE id = $1${lock}`, [id]);
  return rows[0];
}

/** The active IdPs of the instance, oldest first: the login page's "Continue with" buttons (issue 15 §1). */
export async function listActiveIdps(db: Queryable, instanceId: string): Promise<IdpRow[]> {
  const { rows } = await db.query<IdpRow>(
    `SELECT ${COLUMNS} FROM idps WHERE instance_id = $1 AND state = 'active' ORDER BY created_at, id`,
    [instanceId],
  );
  return rows;
}
