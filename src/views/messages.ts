// Pages that say one thing: an error, an address with no page, a finished step, the logout confirmation of
// oidc-provider's end_session and the logged-out page (login/provider-pages.ts).
import { Who } from './fields.ts';
import { html } from './html.ts';
import type { View } from './layout.ts';

export interface ErrorProps {
  title: string | undefined;
  message: string | undefined;
  code?: string | undefined;
}

export const ErrorPage: View<ErrorProps> = ({ t, title, message, code }) =>
  html`<h1>${title}</h1>
    <p class="lead" id="error-message">${message}</p>
    ${code && html`<p class="code">${t.errorCode}: <code id="error-code">${code}</code></p>`}`;

/** An address under the pages' root with no page: where a person can go on to. */
export const NotFoundPage: View<{ accountUrl: string; consoleUrl: string }> = ({ t, accountUrl, consoleUrl }) =>
  html`<h1>${t.notFoundTitle}</h1>
    <p class="lead" id="not-found">${t.notFoundLead}</p>
    <nav class="links">
      <p><a href=${accountUrl} id="not-found-account">${t.notFoundAccount}</a></p>
      <p><a href=${consoleUrl} id="not-found-console">${t.notFoundConsole}</a></p>
    </nav>`;

export interface MessageProps {
  title: string | undefined;
  message: string | undefined;
  link?: { href: string; label: string | undefined };
}

export const MessagePage: View<MessageProps> = ({ title, message, link }) =>
  html`<div class="done" aria-hidden="true">✓</div>
    <h1 id="message-title">${title}</h1>
    <p class="lead" id="message">${message}</p>
    ${link && html`<nav class="links"><a href=${link.href} id="message-link">${link.label}</a></nav>`}`;

export const LoggedOutPage: View<object> = ({ t }) =>
  html`<div class="done" aria-hidden="true">✓</div>
    <h1>${t.loggedOutTitle}</h1>
    <p class="lead">${t.loggedOutLead}</p>`;

export interface LogoutProps {
  action: string;
  xsrf: string | undefined;
  account: { displayName: string; loginName: string; initial: string | undefined } | undefined;
}

/** With a script nonce the form submits itself (provider-pages.ts says when); the script is static text. */
export const LogoutPage: View<LogoutProps> = ({ t, action, xsrf, account, scriptNonce }) =>
  html`<h1>${t.logoutTitle}</h1>
    <p class="lead">${t.logoutLead}</p>
    ${
      account &&
      html`<${Who} initial=${account.initial}>
      <span class="who-text"
        ><strong>${account.displayName}</strong><span class="who-label">${account.loginName}</span></span
      >
    <//>`
    }
    <form method="post" action=${action}>
      <input type="hidden" name="xsrf" value=${xsrf} />
      <input type="hidden" name="logout" value="yes" />
      <button type="submit" class="primary" id="logout" autofocus>${t.logoutConfirm}</button>
    </form>
    ${scriptNonce && html`<script nonce=${scriptNonce}>document.forms[0].submit();</script>`}`;
