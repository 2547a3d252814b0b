// Forgotten passwords: a mail with a one-time link and code, valid one hour, then a new password under the policy. The
// request's answer is the same whether the login name names an account or not (no enumeration); the per-account limit
// is counted in the database (codes sent in the last hour), the per-address one by the page.
import type { Db } from '../platform/db.ts';
import type { Details } from '../events/details.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { findUserByLoginName, loginName } from '../users/lookup.ts';
import { findUserById, type UserRow } from '../users/queries.ts';
import { failedPrecondition, invalidArgument } from '../platform/errors.ts';
import { userNotFound, type UserRef } from '../users/service.ts';
import { issueCode, mayIssueCode, useCode } from '../codes/service.ts';
import type { Mailer } from '../mail/mailer.ts';
import { mailLocale, passwordResetMail } from '../mail/messages.ts';
import { TooManyCodes, invalidCode } from '../emails/service.ts';
import { checkPasswordPolicy } from './current.ts';
import { writeNewPassword } from './service.ts';

export interface ResetDeps {
  db: Db;
  secrets: SecretBox;
  mailer: Mailer;
}

export const resetLink = (issuer: string, userId: string, code: string) =>
  `${issuer}/ui/account/password-reset?${new URLSearchParams({ user: userId, code })}`;

/** Issues a reset code and queues its mail; false when the account's hourly limit is spent. */
async function sendResetMail(deps: ResetDeps, user: UserRow): Promise<boolean> {
  const sent = await deps.db.tx(async (tx) => {
    if (!(await mayIssueCode(tx, user.id, 'password_reset'))) return false;
    const code = await issueCode(tx, deps.secrets, { userId: user.id, purpose: 'password_reset' });
    await deps.mailer.enqueue(
      tx,
      passwordResetMail(deps.mailer.context, mailLocale(user.preferred_language), {
        to: user.email!,
        name: user.display_name ?? '',
        loginName: loginName(user),
        link: resetLink(deps.mailer.issuer, user.id, code),
        code,
      }),
    );
    return true;
  });
  if (sent) deps.mailer.nudge();
  return sent;
}

const canReset = (user: UserRow | undefined): user is UserRow =>
  user?.type === 'human' && user.state === 'active' && Boolean(user.email);

/** The "forgot password" page: mails the account a code if it exists and may have one; says nothing either way. Only to
 *  a verified address: an address set but never proven may be anyone's, since whoever held a session could have typed
 *  it, so an account with one is answered like an unknown name. */
export async function requestPasswordReset(deps: ResetDeps, typedLoginName: string): Promise<void> {
  const user = await findUserByLoginName(deps.db, typedLoginName);
  if (canReset(user) && user.email_verified) await sendResetMail(deps, user);
}

/** SendHumanResetPasswordNotification (type e-mail): an administrator of the user's org sends the mail. */
export async function sendPasswordResetNotification(deps: ResetDeps, ref: UserRef, byEmail: boolean): Promise<void> {
  if (!byEmail)
    throw invalidArgument(
      'invalid SendHumanResetPasswordNotificationRequest.Type: only TYPE_EMAIL is supported',
      'API-N0tSup',
    );
  const user = await findUserById(deps.db, ref.userId);
  if (user?.org_id !== ref.orgId) throw userNotFound();
  if (!canReset(user))
    throw failedPrecondition('User is not an active human user with an e-mail address', 'COMMAND-3M9fs');
  if (!(await sendResetMail(deps, user))) throw new TooManyCodes();
}

/** The reset page: the code must be the user's valid one; the new password must pass the policy. The code is used in
 *  the transaction that stores the password, which also ends every session of the user and queues the notice of the
 *  change. */
export async function resetPasswordWithCode(
  deps: ResetDeps,
  hash: (password: string) => Promise<string>,
  input: { userId: string; code: string; newPassword: string; field: string },
): Promise<Details> {
  await checkPasswordPolicy(deps.db, input.field, input.newPassword);
  const passwordHash = await hash(input.newPassword);
  const details = await deps.db.tx(async (tx) => {
    const used = await useCode(tx, deps.secrets, {
      userId: input.userId,
      purpose: 'password_reset',
      presented: input.code,
    });
    if (!used) return undefined;
    return writeNewPassword(tx, { userId: input.userId }, passwordHash, {
      changeRequired: false,
      creator: input.userId,
      notify: deps.mailer,
    });
  });
  if (!details) throw invalidCode();
  deps.mailer.nudge();
  return details;
}
