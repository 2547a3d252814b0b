// The mails Gatehouse sends (issue 16): e-mail verification and password reset, each as text and HTML, in English
// or German (the user's preferred language), with the instance name in the subject. Texts live in views/mail/.
import { readFileSync } from 'node:fs';
import { renderDocument } from '../views/html.ts';
import { MailBody } from '../views/mail.ts';

export const MAIL_LOCALES = ['en', 'de'] as const;
type MailLocale = (typeof MAIL_LOCALES)[number];
type MailTexts = Readonly<Record<string, string>>;

const TEXTS = Object.fromEntries(
  MAIL_LOCALES.map((l) => [
    l,
    JSON.parse(readFileSync(new URL(`../../views/mail/${l}.json`, import.meta.url), 'utf8')) as MailTexts,
  ]),
) as Record<MailLocale, MailTexts>;

/** A composed message: what the outbox stores (sealed) and the sender hands to SMTP. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailContext {
  /** Shown in every subject and as the signature. */
  instanceName: string;
}

/** The user's language when there is a text for it, else English. */
export function mailLocale(preferredLanguage: string | null | undefined): MailLocale {
  const primary = (preferredLanguage ?? '').toLowerCase().split(/[-_]/)[0];
  return MAIL_LOCALES.find((l) => l === primary) ?? 'en';
}

const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (m, key: string) => values[key] ?? m);

interface Parts {
  subject: string;
  lead: string;
  button: string;
  code: string;
}

function compose(
  ctx: MailContext,
  locale: MailLocale,
  to: string,
  parts: Parts,
  values: Record<string, string> & { link: string; name: string },
): MailMessage {
  const t = TEXTS[locale];
  const all = { ...values, instance: ctx.instanceName };
  const line = (key: string) => fill(t[key]!, all);
  const text = [
    line('greeting'),
    '',
    line(parts.lead),
    values.link,
    '',
    line(parts.code),
    '',
    line('expires'),
    line('ignore'),
    '',
    line('signature'),
    '',
  ].join('\n');
  const body = renderDocument(
    MailBody({
      lang: locale,
      subject: line(parts.subject),
      before: [line('greeting'), line(parts.lead)],
      link: values.link,
      button: line(parts.button),
      after: [parts.code, 'expires', 'ignore', 'signature'].map(line),
    }),
  );
  return { to, subject: line(parts.subject), text, html: body };
}

export function verificationMail(
  ctx: MailContext,
  locale: MailLocale,
  input: { to: string; name: string; link: string; code: string },
): MailMessage {
  return compose(
    ctx,
    locale,
    input.to,
    { subject: 'verifySubject', lead: 'verifyLead', button: 'verifyButton', code: 'verifyCode' },
    { name: input.name, email: input.to, link: input.link, code: input.code },
  );
}

export function passwordResetMail(
  ctx: MailContext,
  locale: MailLocale,
  input: { to: string; name: string; loginName: string; link: string; code: string },
): MailMessage {
  return compose(
    ctx,
    locale,
    input.to,
    { subject: 'resetSubject', lead: 'resetLead', button: 'resetButton', code: 'resetCode' },
    { name: input.name, loginName: input.loginName, link: input.link, code: input.code },
  );
}
