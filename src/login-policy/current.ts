// The login policy in force: read by the pages and the API; the default when none was set.
import type { Queryable } from '../platform/db.ts';
import { scopeKey, takeScoped } from '../platform/request-scope.ts';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from './policy.ts';
import { findLoginPolicy, type LoginPolicyRow } from './queries.ts';

/** The stored policy as JSON carries it: its dates as text. */
export type LoginPolicyJson = Omit<LoginPolicyRow, 'createdAt' | 'changedAt'> & {
  createdAt: string;
  changedAt: string;
};

const revive = (row: LoginPolicyJson | undefined): LoginPolicyRow | undefined =>
  row && { ...row, createdAt: new Date(row.createdAt), changedAt: new Date(row.changedAt) };

export interface StoredLoginPolicy extends LoginPolicy {
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

/** The policy read ahead with the login page (login/page-read-ahead.ts); undefined: there is none stored. */
export const LOGIN_POLICY_AHEAD = scopeKey<LoginPolicyJson>('login-policy');

export async function getLoginPolicy(db: Queryable): Promise<StoredLoginPolicy> {
  const ahead = takeScoped(LOGIN_POLICY_AHEAD);
  const row = ahead ? revive(ahead.value) : await findLoginPolicy(db);
  if (!row) return { ...DEFAULT_LOGIN_POLICY, isDefault: true, details: { sequence: '0' } };
  const { createdAt, changedAt, sequence, ...policy } = row;
  return { ...policy, isDefault: false, details: { sequence, creationDate: createdAt, changeDate: changedAt } };
}
