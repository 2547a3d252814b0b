// TOTP authenticators (RFC 6238; ZITADEL's AddMyAuthFactorOTP / VerifyMyAuthFactorOTP / RemoveMyAuthFactorOTP):
// added unconfirmed with a new secret, ready once a first code matches, removed by the user or an org owner.
// The secret is sealed with the master key at rest; a code is accepted once (user_totp.last_step).
import type { Config } from '../config.ts';
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { AppError, alreadyExists, Code, failedPrecondition, invalidArgument, notFound } from '../platform/errors.ts';
import { getUserById } from '../users/service.ts';
import { loginName, type UserRow } from '../users/lookup.ts';
import { countedCheck } from './attempts.ts';
import { issueRecoveryCodes } from './recovery-codes.ts';
import {
  advanceTotpStep,
  confirmTotp,
  deleteTotp,
  findTotp,
  insertPendingTotp,
  replaceRecoveryCodes,
  setFactorKind,
} from './queries.ts';
import { matchingStep, newTotpSecret, otpauthUri } from './totp.ts';

export const OTP_KIND = 'otp';

interface OtpDeps {
  db: Db;
  secrets: SecretBox;
  config: Config;
}

export interface NewOtp {
  secret: string;
  url: string;
}

// ZITADEL's errors (command/user_human_otp.go): no authenticator is NOT_FOUND (HumanCheckMFATOTPSetup
// COMMAND-3Mif9s, HumanRemoveTOTP COMMAND-Hd9sd); verifying one that is ready already is FAILED_PRECONDITION.
const otpNotFound = (id: string) => notFound('OTP not found', id);

/** A wrong code, and a user locked by too many (the API answers 429 with Retry-After then). */
export class OtpCheckLocked extends AppError {
  override readonly retryAfter: number;
  constructor(seconds: number) {
    super(Code.ResourceExhausted, 'Too many failed checks; try again later', 'AUTH-locked');
    this.retryAfter = seconds;
  }
}
const invalidCode = () => invalidArgument('OTP code is invalid', 'EVENT-8isk2');

/** The otpauth:// URI of a secret, labelled with the issuer's host and the user's login name. */
export function otpUrl(config: Config, user: UserRow, secret: string): string {
  return otpauthUri(secret, new URL(config.issuer).host, loginName(user));
}

async function human(db: Queryable, userId: string): Promise<UserRow> {
  const user = await getUserById(db, userId);
  if (user.type !== 'human') throw failedPrecondition('User is not a human user', 'COMMAND-2M9fs');
  return user;
}

/** AddMyAuthFactorOTP: a new unconfirmed authenticator (replacing an unconfirmed one). */
export async function addMyOtp(deps: OtpDeps, userId: string): Promise<NewOtp & { details: Details }> {
  const user = await human(deps.db, userId);
  const secret = newTotpSecret();
  const otp = { secret, url: otpUrl(deps.config, user, secret) };
  return deps.db.tx(async (tx) => {
    if (!(await insertPendingTotp(tx, userId, deps.secrets.encrypt(otp.secret))))
      throw alreadyExists('Multifactor OTP is already set up', 'COMMAND-do9se');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: EVENT.user.otpAdded,
      resourceOwner: user.org_id,
      creator: userId,
    });
    return { ...otp, details: changedDetails(event) };
  });
}

/** The unconfirmed authenticator's secret and URI, to show again after a wrong first code. */
export async function pendingOtp(deps: OtpDeps, user: UserRow): Promise<NewOtp | undefined> {
  const row = await findTotp(deps.db, user.id);
  if (!row || row.confirmed_at) return undefined;
  const secret = deps.secrets.decrypt(row.sealed_secret);
  return { secret, url: otpUrl(deps.config, user, secret) };
}

/** VerifyMyAuthFactorOTP: the first code confirms the authenticator; a wrong one counts toward the lockout. */
export async function verifyMyOtp(deps: OtpDeps, userId: string, code: string, ip: string): Promise<Details> {
  const user = await human(deps.db, userId);
  const row = await findTotp(deps.db, userId);
  if (!row) throw otpNotFound('COMMAND-3Mif9s');
  if (row.confirmed_at) throw failedPrecondition('Multifactor OTP is already set up', 'COMMAND-qx4ls');
  const secret = deps.secrets.decrypt(row.sealed_secret);
  let step: number | undefined;
  const check = await countedCheck(deps.db, deps.config.lockout, { userId, ip }, async () => {
    step = matchingStep(secret, code.trim());
    return step !== undefined;
  });
  if (!check.ok) throw check.retryAfter ? new OtpCheckLocked(check.retryAfter) : invalidCode();
  return deps.db.tx(async (tx) => {
    await confirmTotp(tx, userId, row.sealed_secret, step!);
    return changedDetails(await otpReady(tx, user));
  });
}

/** The login's enrollment (forceMfa): the secret came sealed in the step's ticket; the first code stores the
 *  authenticator ready, with the user's recovery codes, which are returned to be shown once. */
export async function enrollOtp(
  deps: OtpDeps,
  userId: string,
  secret: string,
  code: string,
  ip: string,
): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; retryAfter?: number }> {
  let step: number | undefined;
  const check = await countedCheck(deps.db, deps.config.lockout, { userId, ip }, async () => {
    step = matchingStep(secret, code.trim());
    return step !== undefined;
  });
  if (!check.ok) return check;
  const user = await human(deps.db, userId);
  const recoveryCodes = await deps.db.tx(async (tx) => {
    await confirmTotp(tx, userId, deps.secrets.encrypt(secret), step!);
    await otpReady(tx, user);
    return issueRecoveryCodes(tx, deps.secrets, userId);
  });
  return { ok: true, recoveryCodes };
}

async function otpReady(tx: Queryable, user: UserRow) {
  await setFactorKind(tx, user.id, OTP_KIND, true);
  return appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: user.id,
    eventType: EVENT.user.otpVerified,
    resourceOwner: user.org_id,
    creator: user.id,
  });
}

/** RemoveMyAuthFactorOTP, RemoveHumanAuthFactorOTP and the account page. With the last factor the recovery codes
 *  go too: they stand in for a factor the user no longer has. */
export async function removeOtp(db: Db, user: UserRow, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    if (!(await deleteTotp(tx, user.id))) throw otpNotFound('COMMAND-Hd9sd');
    const left = await setFactorKind(tx, user.id, OTP_KIND, false);
    if (!left.length) await replaceRecoveryCodes(tx, user.id, []);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.otpRemoved,
      resourceOwner: user.org_id,
      creator,
    });
    return changedDetails(event);
  });
}

/** The login's check of a ready authenticator: counted toward the lockout; a code of a step already used fails. */
export async function checkOtp(deps: OtpDeps, subject: { userId: string; ip: string }, code: string) {
  return countedCheck(deps.db, deps.config.lockout, subject, async () => {
    const row = await findTotp(deps.db, subject.userId);
    if (!row?.confirmed_at) return false;
    const step = matchingStep(deps.secrets.decrypt(row.sealed_secret), code.trim());
    return step !== undefined && (await advanceTotpStep(deps.db, subject.userId, step));
  });
}
