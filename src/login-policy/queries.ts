// SQL of the login policy (migration 0140). No row: the default.
import type { Queryable } from '../platform/db.ts';
import type { LoginPolicy } from './policy.ts';

export interface LoginPolicyRow extends LoginPolicy {
  createdAt: Date;
  changedAt: Date;
  sequence: string;
}

/** The stored policy (no row: the default); also read ahead with the login page (login/page-read-ahead.ts). */
export const LOGIN_POLICY_SQL = `
  SELECT allow_username_password AS "allowUsernamePassword", allow_register AS "allowRegister",
         allow_external_idp AS "allowExternalIdp", force_mfa AS "forceMfa",
         passwordless_allowed AS "passwordlessAllowed", created_at AS "createdAt", changed_at AS "changedAt",
         sequence
    FROM login_policy`;

export async function findLoginPolicy(db: Queryable): Promise<LoginPolicyRow | undefined> {
  const { rows } = await db.query<LoginPolicyRow>(LOGIN_POLICY_SQL);
  return rows[0];
}

/** Held until the transaction ends, so an update compares with a policy no other update is changing (the singleton
 *  row may not exist yet, so FOR UPDATE cannot lock it). Reads, the sign-in's included, are not blocked. */
export async function lockLoginPolicy(tx: Queryable): Promise<void> {
  await tx.query('LOCK TABLE login_policy IN SHARE ROW EXCLUSIVE MODE');
}

export async function upsertLoginPolicy(tx: Queryable, p: LoginPolicy, sequence: string, at: Date): Promise<void> {
  await tx.query(
    `INSERT INTO login_policy (allow_username_password, allow_register, allow_external_idp, force_mfa,
       passwordless_allowed, created_at, changed_at, sequence)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
     ON CONFLICT (singleton) DO UPDATE SET allow_username_password = $1, allow_register = $2,
       allow_external_idp = $3, force_mfa = $4, passwordless_allowed = $5, changed_at = $6, sequence = $7`,
    [p.allowUsernamePassword, p.allowRegister, p.allowExternalIdp, p.forceMfa, p.passwordlessAllowed, at, sequence],
  );
}
