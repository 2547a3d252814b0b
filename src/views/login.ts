// The sign-in pages: login name, password, account chooser, registration, consent, the required
// password change and the refusal of a project check.
import { Alert, Csrf, Field, type FieldProps, HiddenLoginName, Who } from './fields.ts';
import { html } from './html.ts';
import type { View } from './layout.ts';

interface Form {
  action: string;
  csrf: string;
}

export interface LoginNameProps extends Form {
  loginName: string;
  error?: string | undefined;
  /** Absent when the login policy does not allow registration. */
  registerUrl: string | undefined;
  /** The login policy's allowUsernamePassword: without it only the IdP buttons are shown. */
  allowPassword: boolean;
  idps: { id: string; name: string; href: string }[];
  /** "Sign in with a passkey", while the login policy allows passwordless. */
  passkeyUrl?: string | undefined;
}

export const LoginNamePage: View<LoginNameProps> = (p) => {
  const { t, action, csrf, loginName, error, registerUrl, idps } = p;
  return html`<h1>${t.loginTitle}</h1>
    <p class="lead">${t.loginLead}</p>
    ${
      p.allowPassword &&
      html`<form method="post" action=${action}>
      <${Csrf} token=${csrf} />
      <div class="field">
        <label for="loginName">${t.loginNameLabel}</label>
        <input
          id="loginName"
          name="loginName"
          type="text"
          value=${loginName}
          autocomplete="username"
          autocapitalize="none"
          autocorrect="off"
          spellcheck="false"
          maxlength="400"
          required
          autofocus
          aria-describedby=${error ? 'loginName-help loginName-error' : 'loginName-help'}
          aria-invalid=${error ? 'true' : undefined}
        />
        <p class="help" id="loginName-help">${t.loginNameHelp}</p>
        ${error && html`<p class="error" id="loginName-error" role="alert">${error}</p>`}
      </div>
      <button type="submit" class="primary" id="submit">${t.next}</button>
    </form>`
    }
    ${
      p.passkeyUrl &&
      html`<p class="idp"><a class="button" href=${p.passkeyUrl} id="passkey-link">${t.passkeySignIn}</a></p>`
    }
    ${idps.map(
      (idp) =>
        html`<p class="idp">
          <a class="button" href=${idp.href} id=${`idp-${idp.id}`}>${t.continueWith} ${idp.name}</a>
        </p>`,
    )}
    ${registerUrl && html`<nav class="links"><a href=${registerUrl} id="register-link">${t.createAccount}</a></nav>`}`;
};

export interface PasswordProps extends Form {
  loginName: string;
  initial: string | undefined;
  changeUrl: string;
  forgotUrl: string;
  error?: string | undefined;
  alert?: string | undefined;
}

export const PasswordPage: View<PasswordProps> = (p) => {
  const { t } = p;
  const described = p.error ? 'password-error' : p.alert ? 'form-error' : undefined;
  return html`<h1>${t.passwordTitle}</h1>
    <${Who} initial=${p.initial}>
      <span class="who-text"
        ><span class="who-label">${t.signingInAs}</span><strong id="login-name-shown">${p.loginName}</strong></span
      >
      <a href=${p.changeUrl} id="change-account">${t.change}</a>
    <//>
    <${Alert} text=${p.alert} id="form-error" />
    <form method="post" action=${p.action}>
      <${Csrf} token=${p.csrf} />
      <${HiddenLoginName} value=${p.loginName} />
      <div class="field">
        <label for="password">${t.passwordLabel}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          maxlength="1024"
          required
          autofocus
          aria-invalid=${described ? 'true' : undefined}
          aria-describedby=${described}
        />
        ${p.error && html`<p class="error" id="password-error" role="alert">${p.error}</p>`}
      </div>
      <button type="submit" class="primary" id="submit">${t.signIn}</button>
    </form>
    <nav class="links"><a href=${p.forgotUrl} id="forgot-password">${t.forgotPassword}</a></nav>`;
};

export interface SelectAccountProps extends Form {
  otherUrl: string;
  accounts: { id: string; displayName: string; loginName: string; initial: string | undefined; focus: boolean }[];
}

export const SelectAccountPage: View<SelectAccountProps> = ({ t, action, csrf, otherUrl, accounts }) =>
  html`<h1>${t.selectTitle}</h1>
    <p class="lead">${t.selectLead}</p>
    <form method="post" action=${action} class="accounts">
      <${Csrf} token=${csrf} />
      <ul>
        ${accounts.map(
          (a) =>
            html`<li>
              <button type="submit" name="accountId" value=${a.id} class="account" autofocus=${a.focus}>
                <span class="avatar" aria-hidden="true">${a.initial}</span>
                <span class="account-text"><strong>${a.displayName}</strong><span>${a.loginName}</span></span>
              </button>
            </li>`,
        )}
      </ul>
    </form>
    <nav class="links"><a href=${otherUrl} id="use-another">${t.useAnotherAccount}</a></nav>`;

export interface RegisterProps extends Form {
  fields: Record<'firstName' | 'lastName' | 'email' | 'userName' | 'password', FieldProps>;
  loginUrl: string;
  alert?: string | undefined;
}

export const RegisterPage: View<RegisterProps> = ({ t, action, csrf, fields, loginUrl, alert }) =>
  html`<h1>${t.registerTitle}</h1>
    <p class="lead">${t.registerLead}</p>
    <${Alert} text=${alert} />
    <form method="post" action=${action}>
      <${Csrf} token=${csrf} />
      <div class="row"><${Field} ...${fields.firstName} /><${Field} ...${fields.lastName} /></div>
      <${Field} ...${fields.email} />
      <${Field} ...${fields.userName} />
      <${Field} ...${fields.password} />
      <button type="submit" class="primary" id="submit">${t.register}</button>
    </form>
    <nav class="links"><a href=${loginUrl} id="login-link">${t.haveAccount}</a></nav>`;

export interface Account {
  displayName: string;
  loginName: string;
  initial: string | undefined;
}

export interface ConsentProps extends Form {
  lead: string;
  appName: string;
  orgName: string;
  account: Account | undefined;
  alert?: string | undefined;
}

export const ConsentPage: View<ConsentProps> = ({ t, action, csrf, lead, appName, orgName, account, alert }) =>
  html`<h1>${t.consentTitle}</h1>
    <p class="lead" id="consent-lead">${lead}</p>
    ${
      account &&
      html`<${Who} initial=${account.initial}>
      <span class="who-text"
        ><span class="who-label">${t.signedInAs}</span><strong>${account.displayName}</strong
        ><span class="who-label">${account.loginName}</span></span
      >
    <//>`
    }
    <dl class="facts">
      <dt>${t.consentApp}</dt>
      <dd id="consent-app">${appName}</dd>
      <dt>${t.consentOrg}</dt>
      <dd id="consent-org">${orgName}</dd>
      <dt>${t.consentAccess}</dt>
      <dd id="consent-access">${t.consentAccessManagement}</dd>
    </dl>
    <p class="help" id="consent-warning">${t.consentWarning}</p>
    <${Alert} text=${alert} id="form-error" />
    <form method="post" action=${action} class="decision">
      <${Csrf} token=${csrf} />
      <button type="submit" class="primary" name="decision" value="allow" id="consent-allow">${t.consentAllow}</button>
      <button type="submit" class="secondary" name="decision" value="deny" id="consent-deny" autofocus>
        ${t.consentDeny}
      </button>
    </form>`;

export interface PasswordChangeProps extends Form {
  ticket: string;
  loginName: string;
  /** The password policy in words (web/password-rules.ts passwordHelp). */
  help: string;
  error?: string | undefined;
  alert?: string | undefined;
}

export const PasswordChangePage: View<PasswordChangeProps> = ({
  t,
  action,
  csrf,
  ticket,
  loginName,
  help,
  error,
  alert,
}) =>
  html`<h1>${t.passwordChangeTitle}</h1>
    <p class="lead">${t.passwordChangeLead}</p>
    <${Alert} text=${alert} />
    <form method="post" action=${action}>
      <${Csrf} token=${csrf} />
      <input type="hidden" name="ticket" value=${ticket} />
      <${HiddenLoginName} value=${loginName} />
      <${Field}
        id="newPassword"
        name="newPassword"
        label=${t.newPasswordLabel}
        type="password"
        value=""
        autocomplete="new-password"
        maxLength=${1024}
        required=${true}
        autofocus=${true}
        help=${help}
        error=${error}
      />
      <button type="submit" class="primary" id="submit">${t.passwordChangeSubmit}</button>
    </form>`;

export const RefusedPage: View<{ message: string | undefined; continueUrl: string }> = ({ t, message, continueUrl }) =>
  html`<h1>${t.refusedTitle}</h1>
    <p class="lead" id="refused-message">${message}</p>
    <p><a class="button primary" id="refused-continue" href=${continueUrl}>${t.refusedContinue}</a></p>`;
