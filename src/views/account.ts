// The account pages: the signed-in user's profile, e-mail and password, the pages a mail leads to
// (e-mail verification, forgot password, password reset) and the small home page at `/`.
import { Alert, Csrf, Field, type FieldProps, HiddenLoginName, Notice, Who } from './fields.ts';
import { html } from './html.ts';
import type { View } from './layout.ts';
import { PasskeysSection, type PasskeysSectionProps } from './passkeys.ts';
import { Confirm, type ConfirmMode } from './account-factors.ts';

interface Option {
  value: string;
  label: string | undefined;
  selected: boolean;
}

export interface AccountProps {
  csrf: string;
  loginName: string;
  initial: string | undefined;
  signOutUrl: string;
  notice: string | undefined;
  alert: string | undefined;
  profile: Record<'firstName' | 'lastName' | 'displayName' | 'nickName', FieldProps>;
  languages: Option[];
  genders: Option[];
  email: string | null;
  emailVerified: boolean;
  codeField: FieldProps;
  emailField: FieldProps;
  currentPasswordField: FieldProps;
  newPasswordField: FieldProps;
  /** The user's passkeys. */
  passkeys: PasskeysSectionProps['passkeys'];
  passkeyNameField: FieldProps;
  /** How a sensitive change is confirmed (OWASP ASVS 5.0 §7.5.1). */
  confirm: ConfirmMode;
}

function Select({ id, label, options }: { id: string; label: string | undefined; options: Option[] }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} name=${id}>
      ${options.map((o) => html`<option value=${o.value} selected=${o.selected}>${o.label}</option>`)}
    </select>
  </div>`;
}

export const AccountPage: View<AccountProps> = (p) => {
  const { t, csrf } = p;
  return html`<h1>${t.accountTitle}</h1>
    <${Who} initial=${p.initial}>
      <span class="who-text"><strong id="account-login-name">${p.loginName}</strong></span>
      <a href=${p.signOutUrl} id="sign-out">${t.signOut}</a>
    <//>
    <${Notice} text=${p.notice} />
    <${Alert} text=${p.alert} id="form-error" />
    <section class="section" aria-labelledby="profile-title">
      <h2 id="profile-title">${t.profileTitle}</h2>
      <form method="post" action="/ui/account/profile">
        <${Csrf} token=${csrf} />
        <div class="row"><${Field} ...${p.profile.firstName} /><${Field} ...${p.profile.lastName} /></div>
        <${Field} ...${p.profile.displayName} />
        <${Field} ...${p.profile.nickName} />
        <div class="row">
          <${Select} id="preferredLanguage" label=${t.languageLabel} options=${p.languages} />
          <${Select} id="gender" label=${t.genderLabel} options=${p.genders} />
        </div>
        <button type="submit" class="secondary" id="save-profile">${t.saveProfile}</button>
      </form>
    </section>
    <section class="section" aria-labelledby="email-title">
      <h2 id="email-title">${t.emailTitle}</h2>
      <p>
        <span id="email-current">${p.email}</span>${' '}
        <span class="badge" id="email-state">${p.emailVerified ? t.emailVerified : t.emailUnverified}</span>
      </p>
      ${
        !p.emailVerified &&
        html`<form method="post" action="/ui/account/email/verify">
          <${Csrf} token=${csrf} />
          <${Field} ...${p.codeField} />
          <button type="submit" class="secondary" id="verify-email">${t.verifySubmit}</button>
        </form>
        <form method="post" action="/ui/account/email/resend">
          <${Csrf} token=${csrf} />
          <nav class="links">
            <button type="submit" class="secondary" id="resend-verification">${t.resendVerification}</button>
          </nav>
        </form>`
      }
      <form method="post" action="/ui/account/email">
        <${Csrf} token=${csrf} />
        <${Field} ...${p.emailField} />
        <${Confirm} t=${t} idPrefix="email" mode=${p.confirm} />
        <button type="submit" class="secondary" id="save-email">${t.saveEmail}</button>
      </form>
    </section>
    <section class="section" aria-labelledby="password-title">
      <h2 id="password-title">${t.accountPasswordTitle}</h2>
      <form method="post" action="/ui/account/password">
        <${Csrf} token=${csrf} />
        <${HiddenLoginName} value=${p.loginName} />
        <${Field} ...${p.currentPasswordField} />
        <${Field} ...${p.newPasswordField} />
        <button type="submit" class="primary" id="change-password">${t.passwordChangeSubmit}</button>
      </form>
    </section>
    <${PasskeysSection}
      t=${t}
      csrf=${csrf}
      passkeys=${p.passkeys}
      passkeyNameField=${p.passkeyNameField}
      confirm=${p.confirm}
    />
    <nav class="links"><a href="/ui/account/factors" id="account-factors">${t.factorsTitle}</a></nav>`;
};

export interface VerifyEmailProps {
  csrf: string;
  user: string;
  codeField: FieldProps;
  alert: string | undefined;
}

export const VerifyEmailPage: View<VerifyEmailProps> = ({ t, csrf, user, codeField, alert }) =>
  html`<h1>${t.verifyTitle}</h1>
    <p class="lead">${t.verifyLead}</p>
    <${Alert} text=${alert} id="form-error" />
    <form method="post" action="/ui/account/verify-email">
      <${Csrf} token=${csrf} />
      <input type="hidden" name="user" value=${user} />
      <${Field} ...${codeField} />
      <button type="submit" class="primary" id="submit">${t.verifySubmit}</button>
    </form>`;

export interface ForgotPasswordProps {
  csrf: string;
  loginNameField: FieldProps;
  alert: string | undefined;
}

export const ForgotPasswordPage: View<ForgotPasswordProps> = ({ t, csrf, loginNameField, alert }) =>
  html`<h1>${t.forgotTitle}</h1>
    <p class="lead">${t.forgotLead}</p>
    <${Alert} text=${alert} id="form-error" />
    <form method="post" action="/ui/account/forgot-password">
      <${Csrf} token=${csrf} />
      <${Field} ...${loginNameField} />
      <button type="submit" class="primary" id="submit">${t.forgotSubmit}</button>
    </form>`;

export interface PasswordResetProps {
  csrf: string;
  user: string | undefined;
  loginName: string | undefined;
  notice: string | undefined;
  alert: string | undefined;
  codeField: FieldProps;
  newPasswordField: FieldProps;
}

export const PasswordResetPage: View<PasswordResetProps> = (p) =>
  html`<h1>${p.t.resetTitle}</h1>
    <${Notice} text=${p.notice} />
    <${Alert} text=${p.alert} id="form-error" />
    <form method="post" action="/ui/account/password-reset">
      <${Csrf} token=${p.csrf} />
      ${p.user && html`<input type="hidden" name="user" value=${p.user} />`}
      ${p.loginName && html`<${HiddenLoginName} value=${p.loginName} />`}
      <${Field} ...${p.codeField} />
      <${Field} ...${p.newPasswordField} />
      <button type="submit" class="primary" id="submit">${p.t.resetSubmit}</button>
    </form>`;

export const HomePage: View<{ instanceName: string; lead: string }> = ({ t, instanceName, lead }) =>
  html`<h1>${instanceName}</h1>
    <p class="lead">${lead}</p>
    <nav class="links">
      <p><a href="/ui/account" id="home-account">${t.homeAccount}</a></p>
      <p><a href="/.well-known/openid-configuration" id="home-discovery">${t.homeDiscovery}</a></p>
    </nav>`;
