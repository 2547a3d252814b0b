// The instance's login policy (issue 17, ZITADEL's LoginPolicy): which ways of signing in the login offers, and
// whether a second factor is required. Organizations have none of their own: the instance's applies to all.
import type { Queryable } from '../platform/db.ts';
import { findLoginPolicy } from './queries.ts';

export interface LoginPolicy {
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  allowExternalIdp: boolean;
  /** Every user signs in with a second factor; one without is led through enrolling one (TOTP). */
  forceMfa: boolean;
  /** Passkeys may be used without a password (PASSWORDLESS_TYPE_ALLOWED). */
  passwordlessAllowed: boolean;
}

/** ZITADEL's defaults, and what Gatehouse did before the policy existed. */
export const DEFAULT_LOGIN_POLICY: LoginPolicy = Object.freeze({
  allowUsernamePassword: true,
  allowRegister: true,
  allowExternalIdp: true,
  forceMfa: false,
  passwordlessAllowed: true,
});

export interface StoredLoginPolicy extends LoginPolicy {
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

export async function getLoginPolicy(db: Queryable): Promise<StoredLoginPolicy> {
  const row = await findLoginPolicy(db);
  if (!row) return { ...DEFAULT_LOGIN_POLICY, isDefault: true, details: { sequence: '0' } };
  const { createdAt, changedAt, sequence, ...policy } = row;
  return { ...policy, isDefault: false, details: { sequence, creationDate: createdAt, changeDate: changedAt } };
}
