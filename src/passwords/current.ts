// The policy in force: read by every place that sets a password (passwords/, the API, the pages), so it imports
// nothing but the policy's own files.
import type { Queryable } from '../platform/db.ts';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy, PasswordPolicyError, passwordProblem } from './policy.ts';
import { findPasswordPolicy } from './queries.ts';

export interface StoredPolicy extends PasswordPolicy {
  /** No policy was ever set: the default applies. */
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

export async function getPasswordPolicy(db: Queryable): Promise<StoredPolicy> {
  const row = await findPasswordPolicy(db);
  if (!row) return { ...DEFAULT_PASSWORD_POLICY, isDefault: true, details: { sequence: '0' } };
  const { createdAt, changedAt, sequence, ...policy } = row;
  return { ...policy, isDefault: false, details: { sequence, creationDate: createdAt, changeDate: changedAt } };
}

/** Throws PasswordPolicyError naming `field` when the password breaks the instance's policy. */
export async function checkPasswordPolicy(db: Queryable, field: string, password: string): Promise<void> {
  const problem = passwordProblem(await getPasswordPolicy(db), password);
  if (problem) throw new PasswordPolicyError(field, problem);
}
