// What a service needs to send mail: the outbox write (in its own transaction) and the links' base address.
import type { Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { MailContext, MailMessage } from './messages.ts';
import { enqueueMail } from './outbox.ts';

export interface Mailer {
  /** The issuer: links in mails point to its pages. */
  readonly issuer: string;
  readonly context: MailContext;
  /** Accepts a message in the caller's transaction. */
  enqueue(tx: Queryable, message: MailMessage): Promise<void>;
  /** After the transaction committed: send now rather than at the next poll. */
  nudge(): void;
}

export function createMailer(deps: {
  secrets: SecretBox;
  issuer: string;
  instanceName: string;
  nudge: () => void;
}): Mailer {
  return {
    issuer: deps.issuer,
    context: { instanceName: deps.instanceName },
    async enqueue(tx, message) {
      await enqueueMail(tx, deps.secrets, message);
    },
    nudge: deps.nudge,
  };
}
