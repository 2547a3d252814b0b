// Passkeys: the ceremony page, the only page with a script (Gatehouse's own /ui/static/passkey.js, which
// reads the form's data-options), and the account page's section listing them.
import { Alert, Csrf, Field, type FieldProps } from './fields.ts';
import { type FactorStepProps, OtherFactors, StepHidden } from './factors.ts';
import { html, type Markup } from './html.ts';
import { Confirm, type ConfirmMode } from './account-factors.ts';
import type { Texts } from './i18n.ts';
import type { View } from './layout.ts';

/** The form the script drives: the options in data-options; the answer goes back in `credential`. */
function CeremonyForm(p: {
  action: string;
  ceremony: 'create' | 'get';
  options: string;
  button: string | undefined;
  children: Markup;
}) {
  return html`<form
      method="post"
      action=${p.action}
      id="passkey-form"
      data-ceremony=${p.ceremony}
      data-options=${p.options}
    >
      ${p.children}
      <input type="hidden" name="credential" value="" />
      <button type="button" class="primary" id="passkey-start">${p.button}</button>
    </form>`;
}

const PasskeyScript = () => html`<script src="/ui/static/passkey.js" defer></script>`;
const PasskeyError = ({ text }: { text: string | undefined }) =>
  html`<p class="alert" role="alert" id="passkey-error" hidden>${text}</p>`;

export interface PasskeyProps {
  heading: string | undefined;
  lead: string | undefined;
  button: string | undefined;
  /** `create` registers a credential, `get` signs in with one. */
  ceremony: 'create' | 'get';
  /** WebAuthn's options as JSON (the challenge is stored, bound to this browser). */
  options: string;
  action: string;
  csrf: string;
  backUrl: string;
  /** The new passkey's name (registration). */
  name?: string | undefined;
  alert?: string | undefined;
}

export const PasskeyPage: View<PasskeyProps> = (p) =>
  html`<h1>${p.heading}</h1>
    <p class="lead">${p.lead}</p>
    <${Alert} text=${p.alert} id="form-error" />
    <${PasskeyError} text=${p.t.passkeyFailed} />
    <${CeremonyForm} action=${p.action} ceremony=${p.ceremony} options=${p.options} button=${p.button}>
      <${Csrf} token=${p.csrf} />
      ${p.name && html`<input type="hidden" name="name" value=${p.name} />`}
    <//>
    <nav class="links"><a href=${p.backUrl} id="passkey-back">${p.t.passkeyBack}</a></nav>
    <${PasskeyScript} />`;

/** The second-factor step with a passkey (second-factors/kind.ts): the user's own credentials, after the password. */
export const PasskeyFactorPage = (options: string): View<FactorStepProps> =>
  function PasskeyFactor(p) {
    return html`<h1>${p.t.factorTitle}</h1>
      <p class="lead">${p.t.factorPasskeyLead}</p>
      <${Alert} text=${p.alert} id="form-error" />
      <${PasskeyError} text=${p.t.passkeyFailed} />
      <${CeremonyForm} action=${p.action} ceremony="get" options=${options} button=${p.t.passkeyUse}>
        <${StepHidden} csrf=${p.csrf} ticket=${p.ticket} />
      <//>
      <${OtherFactors} ...${p} />
      <${PasskeyScript} />`;
  };

export interface PasskeysSectionProps {
  t: Texts;
  csrf: string;
  passkeys: { id: string; name: string }[];
  passkeyNameField: FieldProps;
  confirm: ConfirmMode;
}

/** The account page's passkeys: each with a removal form that asks for the password or a code; a field naming a
 *  new one, which asks for them too. */
export const PasskeysSection = ({ t, csrf, passkeys, passkeyNameField, confirm }: PasskeysSectionProps) =>
  html`<section class="section" aria-labelledby="passkeys-title">
    <h2 id="passkeys-title">${t.passkeysTitle}</h2>
    <p class="help">${t.passkeysLead}</p>
    ${!passkeys.length && html`<p id="passkeys-none">${t.passkeysNone}</p>`}
    ${passkeys.map(
      (k) =>
        html`<form method="post" action="/ui/account/passkeys/remove" class="passkey" id=${`passkey-${k.id}`}>
          <${Csrf} token=${csrf} />
          <input type="hidden" name="tokenId" value=${k.id} />
          <h3 class="passkey-name">${k.name}</h3>
          <${Confirm} t=${t} idPrefix=${`passkey-${k.id}`} mode=${confirm} />
          <button type="submit" class="secondary" id=${`remove-passkey-${k.id}`}>${t.passkeyRemove}</button>
        </form>`,
    )}
    <form method="post" action="/ui/account/passkeys/new">
      <${Csrf} token=${csrf} />
      <${Field} ...${passkeyNameField} />
      <${Confirm} t=${t} idPrefix="add-passkey" mode=${confirm} />
      <button type="submit" class="secondary" id="add-passkey">${t.passkeyAdd}</button>
    </form>
  </section>`;
