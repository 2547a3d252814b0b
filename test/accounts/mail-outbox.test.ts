// The mail outbox: an accepted message survives SMTP being down and is sent once it is back; several senders on one
// database send each message once; without SMTP each message becomes an .eml file the log names; the stored message is
// sealed.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { enqueueMail } from '../../src/mail/outbox.ts';
import { MailSender } from '../../src/mail/sender.ts';
import { createSendMail } from '../../src/mail/transport.ts';
import { requestPasswordReset } from '../../src/passwords/reset.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { TEST_MASTER_KEY } from '../helpers/server.ts';

const secrets = createSecretBox(TEST_MASTER_KEY);
const quiet = pino({ level: process.env.MAIL_TEST_LOG ?? 'silent' });

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function addUser(server: TestServer, userName: string): Promise<string> {
  const orgId = (await server.db.query<{ id: string }>('SELECT default_org_id AS id FROM instance')).rows[0]!.id;
  const input = registrationSchema.parse({
    firstName: userName,
    lastName: 'Tester',
    email: `${userName}@example.com`,
    userName,
    password: 'Some-Password-1',
  });
  const { userId } = await registerHuman(server.db, orgId, input, 'en');
  // a reset goes only to a verified address
  await server.db.query('UPDATE users SET email_verified = true WHERE id = $1', [userId]);
  return userId;
}

describe('mail outbox', () => {
  describe('SMTP down for a while', () => {
    let server: TestServer;
    let smtp: TestSmtp | undefined;
    let port: number;

    beforeAll(async () => {
      port = await freePort();
      server = await startTestServer({
        env: { GATEHOUSE_SMTP_URL: `smtp://127.0.0.1:${port}`, GATEHOUSE_MAIL_POLL_MS: '100' },
      });
    });
    afterAll(async () => {
      await server?.stop();
      await smtp?.close();
    });

    it('keeps the accepted messages, retries with backoff, and sends each once when SMTP is back', async () => {
      const names = ['down1', 'down2', 'down3'];
      for (const name of names) await addUser(server, name);
      const mailer = createMailer({ secrets, issuer: server.config.issuer, instanceName: 'Test', nudge: () => {} });
      for (const name of names) await requestPasswordReset({ db: server.db, secrets, mailer }, name);
      // SMTP refuses connections: every message is still there, failed at least twice, none sent
      await until(async () => {
        const { rows } = await server.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM mail_outbox WHERE attempts >= 2 AND sent_at IS NULL',
        );
        return rows[0]!.n === names.length;
      }, 15_000);
      const failed = await server.db.query<{ last_error: string; sealed_message: string }>(
        'SELECT last_error, sealed_message FROM mail_outbox',
      );
      expect(failed.rows.every((r) => /ECONNREFUSED|connect/i.test(r.last_error))).toBe(true);
      // the stored message is sealed: no code, no address, no subject in clear
      expect(failed.rows.every((r) => !r.sealed_message.includes('example.com'))).toBe(true);
      smtp = await startSmtp(port);
      await until(() => smtp!.mails.length >= names.length, 20_000);
      // a little longer: nothing is sent twice
      await new Promise((r) => setTimeout(r, 1500));
      expect(smtp.mails.map((m) => m.to).sort()).toEqual(names.map((n) => `${n}@example.com`));
      const { rows } = await server.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM mail_outbox WHERE sent_at IS NOT NULL AND sealed_message = $1',
        [''],
      );
      expect(rows[0]!.n).toBe(names.length);
    });
  });

  describe('several senders on one database', () => {
    let server: TestServer;
    let smtp: TestSmtp;

    beforeAll(async () => {
      smtp = await startSmtp();
      // the server's own sender is the fourth
      server = await startTestServer({ env: { GATEHOUSE_SMTP_URL: smtp.url, GATEHOUSE_MAIL_POLL_MS: '50' } });
    });
    afterAll(async () => {
      await server?.stop();
      await smtp?.close();
    });

    it('sends each message exactly once', async () => {
      const count = 40;
      for (let i = 0; i < count; i++)
        await enqueueMail(server.db, secrets, {
          to: `m${i}@example.com`,
          subject: `m${i}`,
          text: 'x',
          html: '<p>x</p>',
        });
      const transports = [1, 2, 3].map(() =>
        createSendMail({ smtpUrl: smtp.url, from: 'g@example.com', pollMs: 50 }, ''),
      );
      const senders = transports.map(
        (t) => new MailSender({ db: server.db, secrets, send: t.send, log: quiet, pollMs: 50 }),
      );
      for (const s of senders) s.start();
      try {
        await until(() => smtp.mails.length >= count, 30_000);
        await new Promise((r) => setTimeout(r, 1000));
      } finally {
        for (const s of senders) await s.stop();
        for (const t of transports) t.close();
      }
      const subjects = smtp.mails.map((m) => m.subject).sort();
      expect(subjects).toEqual([...Array(count).keys()].map((i) => `m${i}`).sort());
    });
  });

  describe('without SMTP', () => {
    let server: TestServer;

    beforeAll(async () => {
      // embedded: the database's own data directory; PostgreSQL: a directory of the test's
      const dataDir: Record<string, string> = process.env.DATABASE_URL
        ? { GATEHOUSE_DATA_DIR: mkdtempSync(join(tmpdir(), 'gh-mail-')) }
        : {};
      server = await startTestServer({ env: { GATEHOUSE_MAIL_POLL_MS: '100', ...dataDir } });
    });
    afterAll(async () => server?.stop());

    it('writes each message as an .eml file under the data directory and logs its name', async () => {
      const directory = join(server.config.dataDir, 'mail');
      await addUser(server, 'eml');
      const mailer = createMailer({ secrets, issuer: server.config.issuer, instanceName: 'Test', nudge: () => {} });
      await requestPasswordReset({ db: server.db, secrets, mailer }, 'eml');
      const files = () => {
        try {
          return readdirSync(directory).filter((f) => f.endsWith('.eml'));
        } catch {
          return [];
        }
      };
      await until(() => files().length === 1, 10_000);
      const reset = readFileSync(join(directory, files()[0]!), 'utf8');
      expect(reset).toMatch(/^Subject: Test: reset your password$/m);
      expect(reset).toMatch(/^To: eml@example\.com$/m);
      expect(reset).toMatch(/multipart\/alternative/);
      expect(statSync(directory).mode & 0o077).toBe(0);
      // the sender logs the name once the file is written: wait for the line rather than race it
      const logged = () => server.logs.some((l) => l.includes(join(directory, files()[0]!)));
      await until(logged, 5_000); // throws when the name never reaches the log
    });
  });
});
