// The frame of the login and account pages (one card, the instance's name and logo); the console has its own
// (src/views/console/layout.ts).
import type { Texts } from './i18n.ts';
import { html, type Markup } from './html.ts';

/** What every page view is given besides its own props. */
export interface PageProps {
  t: Texts;
  /** The nonce of the page's one inline script, when it has one (the logout page's auto-submit). */
  scriptNonce?: string | undefined;
}

/** A page view: a typed function of its props and the page's texts, wrapped into the layout by Pages (web/pages.ts). */
export type View<P> = (props: P & PageProps) => Markup;

export interface LayoutProps {
  t: Texts;
  instanceName: string;
  pageTitle: string;
  children: Markup;
}

/** The head lines every page starts with, the console's too: UTF-8, the phone's width, the reader's light or dark
 *  scheme, and no search engine indexes a sign-in or admin page. */
export const PageMeta = () =>
  html`<meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <meta name="robots" content="noindex" />`;

export function Layout({ t, instanceName, pageTitle, children }: LayoutProps) {
  return html`<html lang=${t.lang}>
    <head>
      <${PageMeta} />
      <title>${pageTitle} · ${instanceName}</title>
      <link rel="stylesheet" href="/ui/static/style.css" />
      <link rel="icon" href="/ui/static/logo.svg" type="image/svg+xml" />
    </head>
    <body>
      <main class="shell">
        <div class="card">
          <header class="brand">
            <img src="/ui/static/logo.svg" alt="" width="32" height="32" /><span>${instanceName}</span>
          </header>
          ${children}
        </div>
      </main>
    </body>
  </html>`;
}
