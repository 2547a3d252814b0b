// The notice of a changed password: the account's verified address learns of a change the user made (account page,
// UpdateMyPassword, "change required" at sign-in, reset by mail), so a change by someone else does not go unnoticed.
// Queued by storeNewPassword's `notify` (passwords/service.ts), in the change's transaction.
import type { Queryable } from '../platform/db.ts';
import type { Mailer } from '../mail/mailer.ts';
import { mailLocale, passwordChangedMail } from '../mail/messages.ts';
import { findUserById } from '../users/queries.ts';
import { loginName } from '../users/lookup.ts';

/** Queues the notice in the caller's transaction when the user has a verified address; the caller nudges. */
export async function queuePasswordChangedNotice(tx: Queryable, mailer: Mailer, userId: string): Promise<void> {
  const user = await findUserById(tx, userId);
  if (!user?.email || !user.email_verified) return;
  await mailer.enqueue(
    tx,
    passwordChangedMail(mailer.context, mailLocale(user.preferred_language), {
      to: user.email,
      name: user.display_name ?? '',
      loginName: loginName(user),
    }),
  );
}
