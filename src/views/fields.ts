// A labelled input with its help and error texts, as the login, registration and account pages show them.
import { html } from './html.ts';

export interface FieldProps {
  id: string;
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  autocomplete: string;
  maxLength: number;
  value: string;
  required: boolean;
  autofocus?: boolean | undefined;
  help?: string | undefined;
  error?: string | undefined;
}

export function Field(f: FieldProps) {
  const helpId = f.help ? `${f.id}-help` : undefined;
  const errorId = f.error ? `${f.id}-error` : undefined;
  return html`<div class="field">
    <label for=${f.id}>${f.label}</label>
    <input
      id=${f.id}
      name=${f.name}
      type=${f.type}
      value=${f.value}
      autocomplete=${f.autocomplete}
      maxlength=${f.maxLength}
      required=${f.required}
      autofocus=${f.autofocus}
      aria-describedby=${helpId}
      aria-invalid=${f.error ? 'true' : undefined}
      aria-errormessage=${errorId}
    />
    ${f.help && html`<p class="help" id=${helpId}>${f.help}</p>`}
    ${f.error && html`<p class="error" id=${errorId} role="alert">${f.error}</p>`}
  </div>`;
}

/** The form's one-time CSRF token. */
export const Csrf = ({ token }: { token: string }) => html`<input type="hidden" name="csrf" value=${token} />`;

/** The login name for password managers, next to a password field (hidden from people and screen readers). */
export const HiddenLoginName = ({ value }: { value: string }) =>
  html`<input
    type="text"
    name="loginName"
    value=${value}
    autocomplete="username"
    class="visually-hidden"
    tabindex="-1"
    aria-hidden="true"
    readonly
  />`;

/** A form-wide message above the fields. */
export const Alert = ({ text, id }: { text: string | undefined; id?: string }) =>
  text ? html`<p class="alert" role="alert" id=${id}>${text}</p>` : null;

export const Notice = ({ text }: { text: string | undefined }) =>
  text ? html`<p class="notice" role="status" id="notice">${text}</p>` : null;

/** The signed-in person's initial in a circle and their names. */
export function Who({ initial, children }: { initial: string | undefined; children: unknown }) {
  return html`<div class="who">
    <span class="avatar" aria-hidden="true">${initial}</span>
    ${children}
  </div>`;
}
