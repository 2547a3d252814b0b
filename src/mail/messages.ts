// The mails Gatehouse sends: e-mail verification and password reset, each as text and HTML, in English or German (the
// user's preferred language), with the instance name in the subject; and the notices of a changed e-mail address (to
// the previous one) and of a changed password, so a change by someone else is noticed. Texts live in views/mail/.
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
  /** A mail with something to do: the link's button and the line with its code. */
  action?: { button: string; code: string; link: string };
  /** The lines after the lead (or the code). */
  closing: string[];
}

function compose(
  ctx: MailContext,
  locale: MailLocale,
  to: string,
  parts: Parts,
  values: Record<string, string> & { name: string },
): MailMessage {
  const t = TEXTS[locale];
  const all = { ...values, instance: ctx.instanceName };
  const line = (key: string) => fill(t[key]!, all);
  const action = parts.action;
  const text = [
    line('greeting'),
    '',
    line(parts.lead),
    ...(action ? [action.link, '', line(action.code)] : []),
    '',
    ...parts.closing.map(line),
    '',
    line('signature'),
    '',
  ].join('\n');
  const body = renderDocument(
    MailBody({
      lang: locale,
      subject: line(parts.subject),
      before: [line('greeting'), line(parts.lead)],
      link: action && { href: action.link, button: line(action.button) },
      after: [...(action ? [action.code] : []), ...parts.closing, 'signature'].map(line),
    }),
  );
  return { to, subject: line(parts.subject), text, html: body };
}

/** What a mail with a link and a code says after it. */
const ONE_HOUR_ONCE = ['expires', 'ignore'];

export function verificationMail(
  ctx: MailContext,
  locale: MailLocale,
  input: { to: string; name: string; link: string; code: string },
): MailMessage {
  return compose(
    ctx,
    locale,
    input.to,
    {
      subject: 'verifySubject',
      lead: 'verifyLead',
      action: { button: 'verifyButton', code: 'verifyCode', link: input.link },
      closing: ONE_HOUR_ONCE,
    },
    { name: input.name, email: input.to, code: input.code },
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
    {
      subject: 'resetSubject',
      lead: 'resetLead',
      action: { button: 'resetButton', code: 'resetCode', link: input.link },
      closing: ONE_HOUR_ONCE,
    },
    { name: input.name, loginName: input.loginName, code: input.code },
  );
}

/** To the previous, verified address when the account's address is changed on the account page: its owner learns of a
 *  change made by whoever held the session, in time to act. */
export function emailChangedMail(
  ctx: MailContext,
  locale: MailLocale,
  input: { to: string; name: string; loginName: string; newEmail: string },
): MailMessage {
  return compose(
    ctx,
    locale,
    input.to,
    { subject: 'emailChangedSubject', lead: 'emailChangedLead', closing: ['emailChangedNotYou'] },
    { name: input.name, loginName: input.loginName, email: input.newEmail },
  );
}

/** To the verified address when the password is changed on the account page or reset by mail, so that its owner learns
 *  of a change they did not make. */
export function passwordChangedMail(
  ctx: MailContext,
  locale: MailLocale,
  input: { to: string; name: string; loginName: string },
): MailMessage {
  return compose(
    ctx,
    locale,
    input.to,
    { subject: 'passwordChangedSubject', lead: 'passwordChangedLead', closing: ['passwordChangedNotYou'] },
    { name: input.name, loginName: input.loginName },
  );
}
