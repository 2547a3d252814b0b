// How a message leaves: over SMTP with nodemailer when GATEHOUSE_SMTP_URL is set (smtp:// with STARTTLS when the server
// offers it, smtps:// for TLS from the start; credentials in the URL), else as an .eml file under
// GATEHOUSE_DATA_DIR/mail/ for the operator to pick up (the embedded default).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import type { MailMessage } from './messages.ts';

/** Where a sent message went: the SMTP server's answer, or the file written. */
export interface Delivery {
  file?: string;
  response?: string;
}

export type SendMail = (id: string, message: MailMessage) => Promise<Delivery>;

// Shorter than the sender's lease (sender.ts), so an attempt ends before another instance may claim the message.
const SMTP_TIMEOUT_MS = 20_000;

export function createSendMail(config: Config['mail'], dataDir: string): { send: SendMail; close(): void } {
  const from = config.from;
  if (config.smtpUrl) {
    const url = config.smtpUrl;
    const smtp = onFirstMessage((nodemailer) =>
      nodemailer.createTransport({
        url,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      }),
    );
    return {
      async send(_id, message) {
        const info = await (await smtp.transport()).sendMail({ ...message, from });
        return { response: String(info.response ?? '') };
      },
      close: smtp.close,
    };
  }
  const directory = join(dataDir, 'mail');
  const stream = onFirstMessage((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    async send(id, message) {
      const info = await (await stream.transport()).sendMail({ ...message, from });
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const file = join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
      // the message carries one-time codes: readable by the service's user only
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      return { file };
    },
    close: stream.close,
  };
}

/** The transport, created with the first message rather than at start: nodemailer and what it loads hold a few MB
 *  that a node sending no mail never needs (docs/performance.md, "Memory"). */
function onFirstMessage<T>(create: (nodemailer: typeof import('nodemailer')) => Transporter<T>): {
  transport(): Promise<Transporter<T>>;
  close(): void;
} {
  let created: Promise<Transporter<T>> | undefined;
  let open: Transporter<T> | undefined;
  return {
    transport: () =>
      (created ??= import('nodemailer').then((nodemailer) => {
        open = create(nodemailer);
        return open;
      })),
    close: () => open?.close(),
  };
}
