// A real SMTP server on loopback (smtp-server, the Nodemailer project's) that keeps every mail it receives, parsed
// with mailparser: the tests read verification and reset mails the way a mail client would.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtp {
  port: number;
  url: string;
  mails: ReceivedMail[];
  /** The first mail to `to` whose subject matches, waiting up to `timeoutMs` for it. */
  waitFor(to: string, subject?: RegExp, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
          mails.push({
            to: to?.value[0]?.address ?? '',
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    mails,
    async waitFor(to, subject, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find((m) => m.to === to && (!subject || subject.test(m.subject)));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The code and link a Gatehouse mail carries. */
export function mailCode(mail: ReceivedMail): { code: string; link: string } {
  const code = /: ([A-Z2-9]{8})\s*$/m.exec(mail.text)?.[1];
  const link = /^(https?:\/\/\S+)$/m.exec(mail.text)?.[1];
  if (!code || !link) throw new Error(`no code or link in mail: ${mail.text}`);
  return { code, link };
}
