// The login policy in force: read by the pages and the API; the default when none was set.
import type { Queryable } from '../platform/db.ts';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from './policy.ts';
import { findLoginPolicy, type LoginPolicyRow } from './queries.ts';
import { takeReadAhead } from '../oidc/read-ahead.ts';

const revive = (row: LoginPolicyRow | undefined): LoginPolicyRow | undefined =>
  row && { ...row, createdAt: new Date(row.createdAt), changedAt: new Date(row.changedAt) };

export interface StoredLoginPolicy extends LoginPolicy {
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

/** Key of the policy read ahead with the login page (login/page-read-ahead.ts), as JSON: dates are strings. */
export const LOGIN_POLICY_AHEAD = 'login-policy';

export async function getLoginPolicy(db: Queryable): Promise<StoredLoginPolicy> {
  const ahead = takeReadAhead<LoginPolicyRow>(LOGIN_POLICY_AHEAD);
  const row = ahead ? revive(ahead.row) : await findLoginPolicy(db);
  if (!row) return { ...DEFAULT_LOGIN_POLICY, isDefault: true, details: { sequence: '0' } };
  const { createdAt, changedAt, sequence, ...policy } = row;
  return { ...policy, isDefault: false, details: { sequence, creationDate: createdAt, changeDate: changedAt } };
}
