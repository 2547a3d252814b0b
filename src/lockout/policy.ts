// The instance's lockout policy (ZITADEL's admin GetLockoutPolicy / UpdateLockoutPolicy): how many failed password
// checks (maxPasswordAttempts) and, counted apart, failed second-factor checks (maxOtpAttempts) an account has before
// it is locked. No row: GATEHOUSE_LOCKOUT_MAX_ATTEMPTS for both. The lock is Gatehouse's time-based one
// (GATEHOUSE_LOCKOUT_SECONDS), never permanent and never off, so a maxPasswordAttempts of 0 (ZITADEL's "no lockout") is
// refused; a maxOtpAttempts of 0, which an update that leaves the field out sends too, means "as many as
// maxPasswordAttempts".
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument } from '../platform/errors.ts';
import { findLockoutPolicy, lockLockoutPolicy, upsertLockoutPolicy } from './queries.ts';

/** The bounds of GATEHOUSE_LOCKOUT_MAX_ATTEMPTS (config.ts) and of the column (migration 0175). */
export const MAX_PASSWORD_ATTEMPTS = { min: 1, max: 1000 } as const;

export interface LockoutMaxima {
  maxPasswordAttempts: number;
  maxOtpAttempts: number;
}

export interface StoredLockoutPolicy extends LockoutMaxima {
  /** No policy was ever set: the configured default applies. */
  isDefault: boolean;
  details: { sequence: string; creationDate?: Date; changeDate?: Date };
}

/** The policy in force; `fallback` is the configured default (config.lockout.maxAttempts). */
export async function getLockoutPolicy(db: Queryable, fallback: number): Promise<StoredLockoutPolicy> {
  const row = await findLockoutPolicy(db);
  if (!row)
    return { maxPasswordAttempts: fallback, maxOtpAttempts: fallback, isDefault: true, details: { sequence: '0' } };
  return {
    maxPasswordAttempts: row.maxPasswordAttempts,
    maxOtpAttempts: row.maxOtpAttempts,
    isDefault: false,
    details: { sequence: String(row.sequence), creationDate: row.createdAt, changeDate: row.changedAt },
  };
}

const outOfBounds = (value: number) => value < MAX_PASSWORD_ATTEMPTS.min || value > MAX_PASSWORD_ATTEMPTS.max;
const bounds = `value must be between ${MAX_PASSWORD_ATTEMPTS.min} and ${MAX_PASSWORD_ATTEMPTS.max}`;

/** UpdateLockoutPolicy: the new maxima with their event, in one transaction; the same values again are ZITADEL's
 *  "not changed" (INSTANCE-0psjF). `maxOtpAttempts` 0: as many as `maxPasswordAttempts`. */
export async function updateLockoutPolicy(
  db: Db,
  instanceId: string,
  requested: LockoutMaxima,
  fallback: number,
  creator: string,
): Promise<Details> {
  const { maxPasswordAttempts } = requested;
  const maxOtpAttempts = requested.maxOtpAttempts || maxPasswordAttempts;
  if (outOfBounds(maxPasswordAttempts))
    throw invalidArgument(`invalid UpdateLockoutPolicyRequest.MaxPasswordAttempts: ${bounds}`, 'IAM-LOCKPOL1');
  if (outOfBounds(maxOtpAttempts))
    throw invalidArgument(`invalid UpdateLockoutPolicyRequest.MaxOtpAttempts: ${bounds} (or 0)`, 'IAM-LOCKPOL2');
  return db.tx(async (tx) => {
    // the row is locked while it is compared, so two equal updates cannot both pass as a change
    await lockLockoutPolicy(tx);
    const current = await getLockoutPolicy(tx, fallback);
    if (current.maxPasswordAttempts === maxPasswordAttempts && current.maxOtpAttempts === maxOtpAttempts)
      throw failedPrecondition('Lockout policy not changed', 'INSTANCE-0psjF');
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: EVENT.instance.lockoutPolicyChanged,
      payload: { maxPasswordAttempts, maxOtpAttempts },
      resourceOwner: instanceId,
      creator,
    });
    await upsertLockoutPolicy(tx, { maxPasswordAttempts, maxOtpAttempts }, event.sequence, event.createdAt);
    return { ...changedDetails(event), resourceOwner: instanceId };
  });
}
