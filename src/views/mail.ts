// The HTML part of the mails (mail/messages.ts): the same lines as the text part, and the link as a button.
import { html } from './html.ts';

export interface MailProps {
  lang: string;
  subject: string;
  /** The paragraphs before the link: the greeting and the lead. */
  before: string[];
  link: string;
  button: string;
  after: string[];
}

export function MailBody({ lang, subject, before, link, button, after }: MailProps) {
  const paragraphs = (lines: string[]) => lines.map((line) => html`<p>${line}</p>`);
  return html`<html lang=${lang}>
    <head>
      <meta charset="utf-8" />
      <title>${subject}</title>
    </head>
    <body>
      ${paragraphs(before)}
      <p><a href=${link}>${button}</a></p>
      ${paragraphs(after)}
    </body>
  </html>`;
}
