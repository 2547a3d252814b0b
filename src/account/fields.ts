// Form fields of the account pages (views/fields.ts draws them): every field with its <label>.
import type { Texts } from '../views/i18n.ts';
import type { FieldProps as Field } from '../views/fields.ts';

export function field(
  t: Texts,
  name: string,
  labelKey: string,
  options: Partial<Pick<Field, 'type' | 'autocomplete' | 'maxLength' | 'value' | 'error' | 'required' | 'id'>> = {},
): Field {
  return {
    id: options.id ?? name,
    name,
    label: t[labelKey] ?? labelKey,
    type: options.type ?? 'text',
    autocomplete: options.autocomplete ?? 'off',
    maxLength: options.maxLength ?? 200,
    // a password is never sent back into a page
    value: options.type === 'password' ? '' : (options.value ?? ''),
    required: options.required ?? true,
    error: options.error,
  };
}

export const codeField = (t: Texts, value = '', error?: string) =>
  field(t, 'code', 'codeLabel', { autocomplete: 'one-time-code', maxLength: 32, value, error });

/** `help`: the password policy in words (web/password-rules.ts passwordHelp). */
export const newPasswordField = (t: Texts, help: string, error?: string): Field => ({
  ...field(t, 'newPassword', 'newPasswordLabel', {
    type: 'password',
    autocomplete: 'new-password',
    maxLength: 1024,
    error,
  }),
  help,
});
