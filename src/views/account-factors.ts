// The account's second factors (/ui/account/factors): the authenticator app and the recovery codes,
// each change (adding the app too) confirmed with the current password or a code (OWASP ASVS 5.0 §7.5.1).
import { Alert, Csrf, Field, Notice } from './fields.ts';
import { html } from './html.ts';
import type { View } from './layout.ts';
import type { Texts } from './i18n.ts';

export interface AccountFactorsProps {
  csrf: string;
  notice: string | undefined;
  alert: string | undefined;
  otpReady: boolean;
  recoveryCodesLeft: number;
  accountUrl: string;
  confirm: ConfirmMode;
}

/** How a change is confirmed (account/confirm.ts): typed (the password, or a code of the authenticator app, or a
 *  recovery code), or, for a user with nothing to type, by signing in again (`signIn`), which holds for a few
 *  minutes (`recent`). */
export type ConfirmMode = 'typed' | 'signIn' | 'recent';

/** The confirmation a sensitive change asks for. */
export const Confirm = ({ t, idPrefix, mode }: { t: Texts; idPrefix: string; mode: ConfirmMode }) => {
  if (mode === 'recent') return html`<p class="help">${t.reauthRecent}</p>`;
  if (mode === 'signIn')
    return html`<p class="help">
      ${t.reauthHelp}${' '}<a href="/ui/account/reauth" class="reauth">${t.reauthLink}</a>
    </p>`;
  return html`<p class="help">${t.factorConfirmHelp}</p>
    <div class="row">
      <${Field}
        id=${`${idPrefix}-password`}
        name="password"
        label=${t.currentPasswordLabel}
        type="password"
        autocomplete="current-password"
        maxLength=${1024}
        value=""
        required=${false}
      />
      <${Field}
        id=${`${idPrefix}-code`}
        name="code"
        label=${t.factorConfirmCode}
        type="text"
        autocomplete="one-time-code"
        maxLength=${20}
        value=""
        required=${false}
      />
    </div>`;
};

export const AccountFactorsPage: View<AccountFactorsProps> = (p) => {
  const { t, csrf } = p;
  return html`<h1>${t.factorsTitle}</h1>
    <${Notice} text=${p.notice} />
    <${Alert} text=${p.alert} id="form-error" />
    <section class="section" aria-labelledby="otp-title">
      <h2 id="otp-title">${t.factorOtpName}</h2>
      <p><span class="badge" id="otp-state">${p.otpReady ? t.factorReady : t.factorNone}</span></p>
      ${
        p.otpReady
          ? html`<form method="post" action="/ui/account/factors/otp/remove">
              <${Csrf} token=${csrf} />
              <${Confirm} t=${t} idPrefix="remove-otp" mode=${p.confirm} />
              <button type="submit" class="secondary" id="remove-otp">${t.factorRemove}</button>
            </form>`
          : html`<form method="post" action="/ui/account/factors/otp">
              <${Csrf} token=${csrf} />
              <${Confirm} t=${t} idPrefix="add-otp" mode=${p.confirm} />
              <button type="submit" class="primary" id="add-otp">${t.factorAddOtp}</button>
            </form>`
      }
    </section>
    ${
      p.otpReady &&
      html`<section class="section" aria-labelledby="recovery-title">
        <h2 id="recovery-title">${t.recoveryCodesName}</h2>
        <p id="recovery-left">${t.recoveryCodesLeft}: ${p.recoveryCodesLeft}</p>
        <form method="post" action="/ui/account/factors/recovery">
          <${Csrf} token=${csrf} />
          <${Confirm} t=${t} idPrefix="recovery" mode=${p.confirm} />
          <button type="submit" class="secondary" id="new-recovery-codes">${t.recoveryCodesNew}</button>
        </form>
      </section>`
    }
    <nav class="links"><a href=${p.accountUrl} id="back-to-account">${t.accountTitle}</a></nav>`;
};
