// The second-factor pages of the login (issue 17): a kind's prompt (factors/kind.ts gives the view), the TOTP
// enrollment under forceMfa with its QR code drawn as an inline SVG path, and the recovery codes shown once.
import { Alert, Csrf } from './fields.ts';
import { html, type Markup } from './html.ts';
import type { PageProps, View } from './layout.ts';

interface StepForm {
  action: string;
  csrf: string;
  /** The login step's sealed ticket (login/ticket.ts); the account pages have none. */
  ticket?: string | undefined;
}

/** What every kind's prompt page is given. */
export interface FactorStepProps extends StepForm {
  /** The other ways the user can answer the step: a button each. */
  others: { kind: string; label: string | undefined }[];
  alert?: string | undefined;
}

const StepHidden = ({ csrf, ticket }: StepForm) =>
  html`<${Csrf} token=${csrf} />${ticket && html`<input type="hidden" name="ticket" value=${ticket} />`}`;

/** The frame of a kind's prompt: title, lead, the kind's fields in a form, and the other ways. */
export function FactorStep(p: FactorStepProps & PageProps & { lead: string | undefined; children: Markup }) {
  return html`<h1>${p.t.factorTitle}</h1>
    <p class="lead">${p.lead}</p>
    <${Alert} text=${p.alert} id="form-error" />
    <form method="post" action=${p.action}>
      <${StepHidden} ...${p} />
      ${p.children}
      <button type="submit" class="primary" id="submit">${p.t.factorVerify}</button>
    </form>
    <form method="post" action=${p.action} class="links" id="other-factors">
      <${StepHidden} ...${p} />
      ${p.others.map(
        (o) =>
          html`<button type="submit" name="use" value=${o.kind} class="link" id=${`use-${o.kind}`} formnovalidate>
            ${o.label}
          </button>`,
      )}
    </form>`;
}

/** A one-line code field (TOTP, recovery code). */
function CodeField(p: { label: string | undefined; alert?: string | undefined; otp: boolean }) {
  return html`<div class="field">
    <label for="code">${p.label}</label>
    <input
      id="code"
      name="code"
      type="text"
      inputmode=${p.otp ? 'numeric' : undefined}
      pattern=${p.otp ? '[0-9]{6}' : undefined}
      maxlength=${p.otp ? 6 : 20}
      autocomplete=${p.otp ? 'one-time-code' : 'off'}
      autocapitalize=${p.otp ? undefined : 'characters'}
      spellcheck="false"
      required
      autofocus
      aria-invalid=${p.alert ? 'true' : undefined}
      aria-describedby=${p.alert ? 'form-error' : undefined}
    />
  </div>`;
}

export const OtpPromptPage: View<FactorStepProps> = (p) =>
  html`<${FactorStep} ...${p} lead=${p.t.factorOtpLead}>
    <${CodeField} label=${p.t.factorOtpLabel} alert=${p.alert} otp=${true} />
  <//>`;

export const RecoveryPromptPage: View<FactorStepProps> = (p) =>
  html`<${FactorStep} ...${p} lead=${p.t.factorRecoveryLead}>
    <${CodeField} label=${p.t.factorRecoveryLabel} alert=${p.alert} otp=${false} />
  <//>`;

export interface FactorSetupProps extends StepForm {
  /** The secret in groups of four, for typing by hand. */
  secret: string;
  url: string;
  qrSize: number;
  /** The dark modules as one SVG path (factors/qr.ts). */
  qrPath: string;
  alert?: string | undefined;
}

export const FactorSetupPage: View<FactorSetupProps> = (p) =>
  html`<h1>${p.t.factorSetupTitle}</h1>
    <p class="lead">${p.t.factorSetupLead}</p>
    <${Alert} text=${p.alert} id="form-error" />
    <figure class="qr">
      <svg
        xmlns="http://www.w3.org/2000/svg"
        viewBox=${`0 0 ${p.qrSize} ${p.qrSize}`}
        width="200"
        height="200"
        role="img"
        aria-labelledby="qr-caption"
        shape-rendering="crispEdges"
      >
        <rect width=${p.qrSize} height=${p.qrSize} fill="#fff" />
        <path d=${p.qrPath} fill="#000" />
      </svg>
      <figcaption id="qr-caption">${p.t.factorSetupQr}</figcaption>
    </figure>
    <p class="help">${p.t.factorSetupKey} <code id="otp-secret">${p.secret}</code></p>
    <p class="help"><a href=${p.url} id="otp-url">${p.t.factorSetupLink}</a></p>
    <form method="post" action=${p.action}>
      <${StepHidden} ...${p} />
      <${CodeField} label=${p.t.factorOtpLabel} alert=${p.alert} otp=${true} />
      <button type="submit" class="primary" id="submit">${p.t.factorSetupSubmit}</button>
    </form>`;

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
