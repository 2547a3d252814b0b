// The instance's lockout policy (issue 22, ZITADEL's admin GetLockoutPolicy / UpdateLockoutPolicy): how many
// failed sign-in attempts an account has before it is locked. No row: GATEHOUSE_LOCKOUT_MAX_ATTEMPTS. The lock is
// Gatehouse's time-based one (GATEHOUSE_LOCKOUT_SECONDS, security.md §16), never permanent and never off, so 0
// (ZITADEL's "no lockout") is refused. Second-factor failures count toward the same budget as passwords (one
// counter per account): the policy's maxOtpAttempts is that same number.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument } from '../platform/errors.ts';
import { findLockoutPolicy, lockLockoutPolicy, upsertLockoutPolicy } from './queries.ts';

/** The bounds of GATEHOUSE_LOCKOUT_MAX_ATTEMPTS (config.ts) and of the column (migration 0175). */
export const MAX_PASSWORD_ATTEMPTS = { min: 1, max: 1000 } as const;

export interface StoredLockoutPolicy {
  maxPasswordAttempts: number;
  /** No policy was ever set: the configured default applies. */
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

/** The policy in force; `fallback` is the configured default (config.lockout.maxAttempts). */
export async function getLockoutPolicy(db: Queryable, fallback: number): Promise<StoredLockoutPolicy> {
  const row = await findLockoutPolicy(db);
  if (!row) return { maxPasswordAttempts: fallback, isDefault: true, details: { sequence: '0' } };
  return {
    maxPasswordAttempts: row.maxPasswordAttempts,
    isDefault: false,
    details: { sequence: String(row.sequence), creationDate: row.createdAt, changeDate: row.changedAt },
  };
}

/** UpdateLockoutPolicy: the new maximum with its event, in one transaction; the same value again is ZITADEL's
 *  "not changed" (INSTANCE-0psjF). */
export async function updateLockoutPolicy(
  db: Db,
  instanceId: string,
  maxPasswordAttempts: number,
  fallback: number,
  creator: string,
): Promise<Details> {
  const { min, max } = MAX_PASSWORD_ATTEMPTS;
  if (maxPasswordAttempts < min || maxPasswordAttempts > max)
    throw invalidArgument(
      `invalid UpdateLockoutPolicyRequest.MaxPasswordAttempts: value must be between ${min} and ${max}`,
      'IAM-LOCKPOL1',
    );
  return db.tx(async (tx) => {
    // the row is locked while it is compared, so two equal updates cannot both pass as a change
    await lockLockoutPolicy(tx);
    const current = await getLockoutPolicy(tx, fallback);
    if (current.maxPasswordAttempts === maxPasswordAttempts)
      throw failedPrecondition('Lockout policy not changed', 'INSTANCE-0psjF');
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: 'instance.policy.lockout.changed',
      payload: { maxPasswordAttempts },
      resourceOwner: instanceId,
      creator,
    });
    await upsertLockoutPolicy(tx, maxPasswordAttempts, event.sequence, event.createdAt);
    return { ...changedDetails(event), resourceOwner: instanceId };
  });
}
