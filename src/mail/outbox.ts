// The mail outbox: a message is accepted by writing it in the transaction of the change that sends it (a code and its
// mail commit together or not at all), and sent later by the background sender (sender.ts). The message holds one-time
// codes, so it is stored sealed with the master key: a copy of the database does not show them.
import type { Queryable } from '../platform/db.ts';
import { newId } from '../platform/ids.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { MailMessage } from './messages.ts';

export async function enqueueMail(tx: Queryable, secrets: SecretBox, message: MailMessage): Promise<string> {
  const id = newId();
  await tx.query('INSERT INTO mail_outbox (id, recipient, sealed_message) VALUES ($1, $2, $3)', [
    id,
    message.to,
    secrets.encrypt(JSON.stringify(message)),
  ]);
  return id;
}

export interface ClaimedMail {
  id: string;
  sealed_message: string;
  attempts: number;
  created_at: Date;
}

/**
 * Claims up to `limit` due messages for `leaseSeconds`, in one statement (no session state: it works through a
 * transaction pooler, GATEHOUSE_DB_POOLING=transaction). SKIP LOCKED lets several instances claim at once without
 * waiting on each other, and the lease keeps a claimed message from every other instance until it is sent, failed,
 * or the lease runs out (its sender died): each message goes out once, unless an instance dies between SMTP's
 * acceptance and marking it sent.
 */
export async function claimDueMail(db: Queryable, limit: number, leaseSeconds: number): Promise<ClaimedMail[]> {
  const { rows } = await db.query<ClaimedMail>(
    `UPDATE mail_outbox SET lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM mail_outbox
       WHERE sent_at IS NULL AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       ORDER BY next_attempt_at LIMIT $1
       FOR UPDATE SKIP LOCKED)
     RETURNING id, sealed_message, attempts, created_at`,
    [limit, leaseSeconds],
  );
  return rows;
}

/** Sent: the sealed message is dropped (the codes in it need not stay in the database). */
export async function markMailSent(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE mail_outbox SET sent_at = now(), lease_until = NULL, sealed_message = '', last_error = NULL
     WHERE id = $1`,
    [id],
  );
}

export async function markMailFailed(db: Queryable, id: string, retryInSeconds: number, error: string): Promise<void> {
  await db.query(
    `UPDATE mail_outbox SET lease_until = NULL, next_attempt_at = now() + make_interval(secs => $2), last_error = $3
     WHERE id = $1`,
    [id, retryInSeconds, error.slice(0, 500)],
  );
}

/** Sent messages are kept a week (for the operator's questions), then deleted. */
export async function purgeSentMail(db: Queryable): Promise<void> {
  await db.query("DELETE FROM mail_outbox WHERE sent_at < now() - interval '7 days'");
}
