// Setting passwords: the policy's reads and update, the user's own change (the old password verified and counted toward
// lockout), an administrator's set, and "change required". Every change ends the user's other sessions and revokes
// their refresh tokens.
import type { Config } from '../config.ts';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { AppError, Code, failedPrecondition, invalidArgument } from '../platform/errors.ts';
import { recordFailure, recordSuccess, reserveLoginAttempt } from '../lockout/service.ts';
import { findUserById, lockUser } from '../users/queries.ts';
import { userNotFound, type UserRef } from '../users/service.ts';
import type { HashSlot } from '../users/passwords.ts';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from './policy.ts';
import { checkPasswordPolicy, getPasswordPolicy } from './current.ts';
import { queuePasswordChangedNotice } from './notice.ts';
import type { Mailer } from '../mail/mailer.ts';
import { endOtherSessions, lockPasswordPolicy, storePasswordHash, upsertPasswordPolicy } from './queries.ts';

export async function updatePasswordPolicy(
  db: Db,
  instanceId: string,
  policy: PasswordPolicy,
  creator: string,
): Promise<Details> {
  // Never below 8 (OWASP ASVS's minimum); never above the longest password accepted
  if (policy.minLength < DEFAULT_PASSWORD_POLICY.minLength || policy.minLength > 1024)
    throw invalidArgument(
      'invalid UpdatePasswordComplexityPolicyRequest.MinLength: value must be between 8 and 1024',
      'IAM-PWPOL1',
    );
  return db.tx(async (tx) => {
    // ZITADEL's answer to a policy saved as it is (the default counts as the policy in force)
    await lockPasswordPolicy(tx);
    const current = await getPasswordPolicy(tx);
    if ((Object.keys(DEFAULT_PASSWORD_POLICY) as (keyof PasswordPolicy)[]).every((k) => current[k] === policy[k]))
      throw failedPrecondition('Password complexity policy not changed', 'INSTANCE-9jlsf');
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: EVENT.instance.passwordComplexityPolicyChanged,
      payload: { ...policy },
      resourceOwner: instanceId,
      creator,
    });
    await upsertPasswordPolicy(tx, policy, event.sequence, event.createdAt);
    return { ...changedDetails(event), resourceOwner: instanceId };
  });
}

/** Who changes a password and from where: the lockout counts per account and per client address. */
export interface PasswordChanger {
  userId: string;
  ip: string;
  /** The OP session of the browser that changes it (the account page): kept; every other one ends. */
  keepSessionUid?: string;
}

export const invalidOldPassword = () => invalidArgument('Password is invalid', 'COMMAND-3M0fs');

export class PasswordCheckLocked extends AppError {
  override readonly retryAfter: number;
  constructor(seconds: number) {
    super(Code.ResourceExhausted, 'Too many failed password checks; try again later', 'AUTH-locked');
    this.retryAfter = seconds;
  }
}

/** UpdateMyPassword and the account page: the old password is verified like a sign-in, counted toward lockout (against
 *  guessing), before anything is hashed. `slot` is the request's one place in the hashing queue, admitted for two uses:
 *  the old password's check and the new password's hash, so an accepted old password is never followed by a refusal of
 *  the queue. The verified address hears of the change. */
export async function changeMyPassword(
  deps: { db: Db; lockout: Config['lockout']; mailer: Mailer },
  slot: HashSlot,
  who: PasswordChanger,
  input: { oldPassword: string; newPassword: string; field: string },
): Promise<Details> {
  const { db, lockout } = deps;
  const user = await findUserById(db, who.userId);
  if (user?.type !== 'human') throw failedPrecondition('User is not a human user', 'COMMAND-2M9fs');
  await checkPasswordPolicy(db, input.field, input.newPassword);
  const subject = { account: user.id, ip: who.ip };
  const wait = await reserveLoginAttempt(db, lockout, subject);
  if (wait > 0) {
    slot.release();
    throw new PasswordCheckLocked(wait);
  }
  const valid = user.password_hash
    ? await slot.verify(input.oldPassword, user.password_hash)
    : await slot.verifyDecoy(input.oldPassword);
  if (!valid) {
    const locked = await recordFailure(db, lockout, subject);
    if (locked > 0) throw new PasswordCheckLocked(locked);
    throw invalidOldPassword();
  }
  await recordSuccess(db, subject);
  return storeNewPassword(db, who, await slot.hash(input.newPassword), {
    changeRequired: false,
    creator: user.id,
    notify: deps.mailer,
  });
}

/** SetHumanPassword: an administrator of the user's org sets it; the user must change it at the next sign-in
 *  unless `changeRequired` is false. */
export async function setHumanPassword(
  db: Db,
  ref: UserRef,
  password: string,
  changeRequired: boolean,
  creator: string,
  hash: (password: string) => Promise<string>,
): Promise<Details> {
  const user = await findUserById(db, ref.userId);
  if (user?.org_id !== ref.orgId) throw userNotFound();
  if (user.type !== 'human') throw failedPrecondition('User is not a human user', 'COMMAND-2M9fs');
  await checkPasswordPolicy(db, 'SetHumanPasswordRequest.Password', password);
  return storeNewPassword(db, { userId: user.id }, await hash(password), { changeRequired, creator });
}

/** How a new password is stored. */
export interface NewPasswordOptions {
  changeRequired: boolean;
  creator: string;
  /** A change by the user (account page, UpdateMyPassword, "change required" at sign-in, reset by mail): the verified
   *  address is told, by a mail queued in the change's transaction, so the change and its notice commit together. A
   *  password an administrator sets is told to nobody, as in ZITADEL. */
  notify?: Mailer;
}

/** Stores a new password hash (already checked against the policy), in one transaction with its event, the
 *  "change required" flag, the end of the user's other sessions and the notice, if any. */
export async function storeNewPassword(
  db: Db,
  who: Pick<PasswordChanger, 'userId' | 'keepSessionUid'>,
  passwordHash: string,
  options: NewPasswordOptions,
): Promise<Details> {
  const details = await db.tx((tx) => writeNewPassword(tx, who, passwordHash, options));
  options.notify?.nudge();
  return details;
}

/** storeNewPassword in the caller's transaction (a reset writes it together with using its code); the caller
 *  nudges the mailer after the commit. */
export async function writeNewPassword(
  tx: Queryable,
  who: Pick<PasswordChanger, 'userId' | 'keepSessionUid'>,
  passwordHash: string,
  options: NewPasswordOptions,
): Promise<Details> {
  const user = await lockUser(tx, who.userId);
  if (!user) throw userNotFound();
  const event = await appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: user.id,
    eventType: EVENT.user.passwordChanged,
    payload: { changeRequired: options.changeRequired },
    resourceOwner: user.org_id,
    creator: options.creator,
  });
  await storePasswordHash(tx, user.id, passwordHash, options.changeRequired, event.sequence, event.createdAt);
  await endOtherSessions(tx, user.id, who.keepSessionUid);
  if (options.notify) await queuePasswordChangedNotice(tx, options.notify, user.id);
  return changedDetails(event);
}
