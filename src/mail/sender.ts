// The background sender: every instance polls the outbox, claims due messages with a lease and sends them; a failure is
// retried with exponential backoff (1 s, 2 s, 4 s, ... up to 10 minutes), for as long as it takes: a message accepted
// for sending is never dropped. A new message nudges the sender of its own process, so mail leaves at once rather than
// at the next poll.
import type { Logger } from 'pino';
import type { Db } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { MailMessage } from './messages.ts';
import { claimDueMail, markMailFailed, markMailSent, purgeSentMail, type ClaimedMail } from './outbox.ts';
import type { SendMail } from './transport.ts';

const BATCH = 10;
const LEASE_SECONDS = 60;
const MAX_BACKOFF_SECONDS = 600;

export const retryDelaySeconds = (attempts: number) => Math.min(MAX_BACKOFF_SECONDS, 2 ** Math.max(0, attempts - 1));

export class MailSender {
  readonly #db: Db;
  readonly #secrets: SecretBox;
  readonly #send: SendMail;
  readonly #log: Logger;
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(deps: { db: Db; secrets: SecretBox; send: SendMail; log: Logger; pollMs: number }) {
    this.#db = deps.db;
    this.#secrets = deps.secrets;
    this.#send = deps.send;
    this.#log = deps.log;
    this.#pollMs = deps.pollMs;
  }

  /** The first poll comes after one interval, like the key reload's: a start does no database work of its own. */
  start(): void {
    this.#schedule(this.#pollMs);
  }

  /** Sends what is due now (a new message was accepted in this process). */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  /** Stops polling and waits for the batch in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#running = this.#drain()
        .catch((error: Error) => this.#log.error({ err: error }, 'mail outbox poll failed'))
        .finally(() => {
          this.#running = undefined;
          this.#schedule(this.#again ? 0 : this.#pollMs);
          this.#again = false;
        });
    }, ms);
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    // a full batch means more may be due: take the next one at once (bounded: each round claims at most BATCH)
    for (let round = 0; round < 100 && !this.#stopped; round++) {
      const claimed = await claimDueMail(this.#db, BATCH, LEASE_SECONDS);
      for (const mail of claimed) await this.#deliver(mail);
      if (claimed.length < BATCH) break;
    }
    await purgeSentMail(this.#db);
  }

  async #deliver(mail: ClaimedMail): Promise<void> {
    const message = JSON.parse(this.#secrets.decrypt(mail.sealed_message)) as MailMessage;
    try {
      const delivery = await this.#send(mail.id, message);
      await markMailSent(this.#db, mail.id);
      // the recipient and subject only: the body holds one-time codes
      this.#log.info({ mailId: mail.id, subject: message.subject, ...delivery }, 'mail sent');
    } catch (error) {
      const delay = retryDelaySeconds(mail.attempts);
      const reason = error instanceof Error ? error.message : String(error);
      await markMailFailed(this.#db, mail.id, delay, reason);
      this.#log.warn({ mailId: mail.id, attempts: mail.attempts, retryInSeconds: delay, reason }, 'mail not sent');
    }
  }
}
