// E-mail addresses and their verification: a new or changed address is unverified until the user opens the link or
// enters the code of the mail sent to it; email_verified in tokens and userinfo follows the users row. SetMyEmail,
// VerifyMyEmail, ResendMyEmailVerification, UpdateHumanEmail, ResendHumanEmailVerification, registration and the
// account page all come here.
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { AppError, Code, failedPrecondition, invalidArgument } from '../platform/errors.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { findUserById, type UserRow } from '../users/queries.ts';
import { userNotFound } from '../users/service.ts';
import { issueCode, mayIssueCode, useCode } from '../codes/service.ts';
import type { Mailer } from '../mail/mailer.ts';
import { emailChangedMail, mailLocale, verificationMail } from '../mail/messages.ts';
import { loginName } from '../users/lookup.ts';
import { storeEmail } from './queries.ts';

export interface EmailDeps {
  db: Db;
  secrets: SecretBox;
  mailer: Mailer;
}

const EMAIL_MAX_LENGTH = 200;
const emailSchema = z.string().trim().min(1).max(EMAIL_MAX_LENGTH).pipe(z.email());

/** The address, trimmed, or INVALID_ARGUMENT naming the field. */
export function parseEmail(field: string, value: string): string {
  const parsed = emailSchema.safeParse(value);
  if (!parsed.success) throw invalidArgument(`invalid ${field}: must be a valid e-mail address`, 'EMAIL-spblu');
  return parsed.data;
}

export const verifyLink = (issuer: string, userId: string, code: string) =>
  `${issuer}/ui/account/verify-email?${new URLSearchParams({ user: userId, code })}`;

export class TooManyCodes extends AppError {
  override readonly retryAfter = 3600;
  constructor() {
    super(Code.ResourceExhausted, 'Too many codes sent to this user; try again later', 'CODE-limit');
  }
}

type MailUser = Pick<UserRow, 'id' | 'display_name' | 'preferred_language'>;

/** Issues a verification code for `address` and queues its mail, in the caller's transaction. */
export async function queueEmailVerification(
  tx: Queryable,
  deps: Pick<EmailDeps, 'secrets' | 'mailer'>,
  user: MailUser,
  address: string,
): Promise<void> {
  const code = await issueCode(tx, deps.secrets, { userId: user.id, purpose: 'email_verification', email: address });
  await deps.mailer.enqueue(
    tx,
    verificationMail(deps.mailer.context, mailLocale(user.preferred_language), {
      to: address,
      name: user.display_name ?? '',
      link: verifyLink(deps.mailer.issuer, user.id, code),
      code,
    }),
  );
}

async function humanUser(db: Queryable, userId: string, orgId?: string): Promise<UserRow> {
  const user = await findUserById(db, userId);
  if (!user || (orgId !== undefined && user.org_id !== orgId)) throw userNotFound();
  if (user.type !== 'human') throw failedPrecondition('User is not a human user', 'COMMAND-2M9fs');
  return user;
}

/** SetMyEmail and UpdateHumanEmail: a changed address is stored unverified (unless an administrator says it is
 *  verified) and a code is mailed to it; an unchanged one is refused, as in ZITADEL. With `notifyPrevious` (the account
 *  page) the previous address, when it was verified and differs, is told of the change (so a change by whoever held the
 *  session does not go unnoticed); the APIs send what ZITADEL sends. */
export async function changeEmail(
  deps: EmailDeps,
  target: { userId: string; orgId?: string },
  input: { field: string; email: string; verified: boolean; notifyPrevious?: boolean },
  creator: string,
): Promise<Details> {
  const address = parseEmail(input.field, input.email);
  const details = await deps.db.tx(async (tx) => {
    const user = await humanUser(tx, target.userId, target.orgId);
    if (user.email === address && user.email_verified === input.verified)
      throw failedPrecondition('Email not changed', 'COMMAND-2b7fM');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.emailChanged,
      payload: { email: address, verified: input.verified },
      resourceOwner: user.org_id,
      creator,
    });
    await storeEmail(tx, user.id, { address, verified: input.verified }, event.sequence, event.createdAt);
    if (!input.verified) {
      // each change mails the address given: bounded, so the API cannot be used to flood an inbox
      if (!(await mayIssueCode(tx, user.id, 'email_verification'))) throw new TooManyCodes();
      await queueEmailVerification(tx, deps, user, address);
    }
    if (input.notifyPrevious && user.email && user.email_verified && user.email !== address)
      await deps.mailer.enqueue(
        tx,
        emailChangedMail(deps.mailer.context, mailLocale(user.preferred_language), {
          to: user.email,
          name: user.display_name ?? '',
          loginName: loginName(user),
          newEmail: address,
        }),
      );
    return changedDetails(event);
  });
  deps.mailer.nudge();
  return details;
}

/** ResendMyEmailVerification and ResendHumanEmailVerification: a new code for the current, unverified address. */
export async function resendEmailVerification(
  deps: EmailDeps,
  target: { userId: string; orgId?: string },
  creator: string,
): Promise<Details> {
  const details = await deps.db.tx(async (tx) => {
    const user = await humanUser(tx, target.userId, target.orgId);
    if (user.email_verified) throw failedPrecondition('Email is already verified', 'COMMAND-3M9ds');
    if (!(await mayIssueCode(tx, user.id, 'email_verification'))) throw new TooManyCodes();
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.emailCodeAdded,
      resourceOwner: user.org_id,
      creator,
    });
    await queueEmailVerification(tx, deps, user, user.email!);
    return changedDetails(event);
  });
  deps.mailer.nudge();
  return details;
}

export const invalidCode = () => invalidArgument('Code is invalid', 'CODE-woT0xc');

/** VerifyMyEmail, the link of the mail and the account page: the code must be the user's valid one, issued for
 *  the address the user has now. */
export async function verifyEmail(
  deps: Pick<EmailDeps, 'db' | 'secrets'>,
  userId: string,
  code: string,
): Promise<Details> {
  const outcome = await deps.db.tx(async (tx) => {
    const user = await findUserById(tx, userId);
    if (user?.type !== 'human') return undefined;
    const used = await useCode(tx, deps.secrets, { userId, purpose: 'email_verification', presented: code });
    // a code for an address the user has since changed verifies nothing
    if (!used || used.email !== user.email) return undefined;
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.emailVerified,
      resourceOwner: user.org_id,
      creator: userId,
    });
    await storeEmail(tx, user.id, { address: user.email!, verified: true }, event.sequence, event.createdAt);
    return changedDetails(event);
  });
  if (!outcome) throw invalidCode();
  return outcome;
}
