// The login policy in force: read by the pages and the API; the default when none was set.
import type { Queryable } from '../platform/db.ts';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from './policy.ts';
import { findLoginPolicy } from './queries.ts';

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
