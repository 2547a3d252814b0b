// The HTML part of the mails (mail/messages.ts): the same lines as the text part, and the link (if any) as a button.
import { html } from './html.ts';

export interface MailProps {
  lang: string;
  subject: string;
  /** The paragraphs before the link: the greeting and the lead. */
  before: string[];
  /** The mail's link as a button; a notice has none. */
  link: { href: string; button: string } | undefined;
  after: string[];
}

export function MailBody({ lang, subject, before, link, after }: MailProps) {
  const paragraphs = (lines: string[]) => lines.map((line) => html`<p>${line}</p>`);
  return html`<html lang=${lang}>
    <head>
      <meta charset="utf-8" />
      <title>${subject}</title>
    </head>
    <body>
      ${paragraphs(before)}
      ${link && html`<p><a href=${link.href}>${link.button}</a></p>`}
      ${paragraphs(after)}
    </body>
  </html>`;
}
