// The second-factor step of the sign-in: the page that asks a kind of factor (second-factors/kind.ts) for
// its answer, TOTP enrollment under forceMfa, and the recovery codes shown once after it.
import type { Texts } from './i18n.ts';
import { Alert, Csrf } from './fields.ts';
import { html, type Markup } from './html.ts';
import type { View } from './layout.ts';

/** What every second-factor page posts: the step's sealed ticket beside the CSRF token. The account pages
 *  (account/factors-page.ts) have no ticket. */
interface StepForm {
  action: string;
  csrf: string;
  ticket?: string | undefined;
}

export const StepHidden = ({ csrf, ticket }: StepForm) =>
  html`<${Csrf} token=${csrf} />${ticket && html`<input type="hidden" name="ticket" value=${ticket} />`}`;

/** The props of a factor's page: the form, the user's other kinds to switch to, and a form-wide message. */
export interface FactorStepProps extends StepForm {
  others: { kind: string; label: string | undefined }[];
  alert?: string | undefined;
}

/** Buttons that switch the step to another of the user's kinds (or a recovery code). */
export function OtherFactors(p: FactorStepProps) {
  return html`<form method="post" action=${p.action} class="links" id="other-factors">
    <${StepHidden} ...${p} />
    ${p.others.map(
      (o) =>
        html`<button type="submit" name="use" value=${o.kind} class="link" id=${`use-${o.kind}`} formnovalidate>
          ${o.label}
        </button>`,
    )}
  </form>`;
}

interface CodeInput {
  label: string | undefined;
  alert: string | undefined;
  /** TOTP: six digits from an app; recovery: a code typed from paper. */
  kind: 'otp' | 'recovery';
}

function CodeField({ label, alert, kind }: CodeInput) {
  const otp = kind === 'otp';
  return html`<div class="field">
    <label for="code">${label}</label>
    <input
      id="code"
      name="code"
      type="text"
      inputmode=${otp ? 'numeric' : undefined}
      autocomplete=${otp ? 'one-time-code' : 'off'}
      autocapitalize=${otp ? undefined : 'characters'}
      spellcheck=${otp ? undefined : 'false'}
      pattern=${otp ? '[0-9]{6}' : undefined}
      maxlength=${otp ? 6 : 20}
      required
      autofocus
      aria-invalid=${alert ? 'true' : undefined}
      aria-describedby=${alert ? 'form-error' : undefined}
    />
  </div>`;
}

/** A factor page that asks for a typed code: its lead text, the field, and the switch to the other kinds. */
function CodeStep(p: FactorStepProps & { t: Texts; lead: string | undefined; field: CodeInput }): Markup {
  return html`<h1>${p.t.factorTitle}</h1>
    <p class="lead">${p.lead}</p>
    <${Alert} text=${p.alert} id="form-error" />
    <form method="post" action=${p.action}>
      <${StepHidden} ...${p} />
      <${CodeField} ...${p.field} />
      <button type="submit" class="primary" id="submit">${p.t.factorVerify}</button>
    </form>
    <${OtherFactors} ...${p} />`;
}

export const OtpFactorPage: View<FactorStepProps> = (p) =>
  CodeStep({
    ...p,
    lead: p.t.factorOtpLead,
    field: { label: p.t.factorOtpLabel, alert: p.alert, kind: 'otp' },
  });

export const RecoveryFactorPage: View<FactorStepProps> = (p) =>
  CodeStep({
    ...p,
    lead: p.t.factorRecoveryLead,
    field: { label: p.t.factorRecoveryLabel, alert: p.alert, kind: 'recovery' },
  });

export interface FactorSetupProps extends StepForm {
  /** The key in groups of four, for typing by hand. */
  secret: string;
  /** The otpauth:// URI. */
  url: string;
  qrSize: number;
  qrPath: string;
  alert?: string | undefined;
}

export const FactorSetupPage: View<FactorSetupProps> = (p) => {
  const { t } = p;
  const box = `0 0 ${p.qrSize} ${p.qrSize}`;
  return html`<h1>${t.factorSetupTitle}</h1>
    <p class="lead">${t.factorSetupLead}</p>
    <${Alert} text=${p.alert} id="form-error" />
    <figure class="qr">
      <svg
        xmlns="http://www.w3.org/2000/svg"
        viewBox=${box}
        width="200"
        height="200"
        role="img"
        aria-labelledby="qr-caption"
        shape-rendering="crispEdges"
      >
        <rect width=${p.qrSize} height=${p.qrSize} fill="#fff" />
        <path d=${p.qrPath} fill="#000" />
      </svg>
      <figcaption id="qr-caption">${t.factorSetupQr}</figcaption>
    </figure>
    <p class="help">${t.factorSetupKey} <code id="otp-secret">${p.secret}</code></p>
    <p class="help"><a href=${p.url} id="otp-url">${t.factorSetupLink}</a></p>
    <form method="post" action=${p.action}>
      <${StepHidden} ...${p} />
      <${CodeField} label=${t.factorOtpLabel} alert=${p.alert} kind="otp" />
      <button type="submit" class="primary" id="submit">${t.factorSetupSubmit}</button>
    </form>`;
};

export interface RecoveryCodesProps extends StepForm {
  codes: string[];
  /** The account page goes on with a link rather than a form. */
  continueUrl?: string | undefined;
}

export const RecoveryCodesPage: View<RecoveryCodesProps> = (p) =>
  html`<h1>${p.t.recoveryCodesTitle}</h1>
    <p class="lead">${p.t.recoveryCodesLead}</p>
    <ul class="codes" id="recovery-codes">
      ${p.codes.map((code) => html`<li><code>${code}</code></li>`)}
    </ul>
    ${
      p.continueUrl
        ? html`<nav class="links"><a href=${p.continueUrl} id="continue">${p.t.continue}</a></nav>`
        : html`<form method="post" action=${p.action}>
            <${StepHidden} ...${p} />
            <button type="submit" class="primary" id="submit">${p.t.continue}</button>
          </form>`
    }`;
