// The account page's passkeys (issue 17): the list, each with a removal form asking for the password, and the
// field naming a new one.
import type { Queryable } from '../platform/db.ts';
import { format, type Texts } from '../login/i18n.ts';
import { listPasskeys, PASSKEY_NAME_MAX } from '../passkeys/service.ts';
import { field } from './fields.ts';

export async function passkeysSection(db: Queryable, t: Texts, userId: string, nameError?: string) {
  const passkeys = await listPasskeys(db, userId);
  return {
    passkeys: passkeys.map((p) => ({
      id: p.id,
      name: p.name,
      passwordField: {
        ...field(t, 'currentPassword', 'currentPasswordLabel', {
          id: `passkey-password-${p.id}`,
          type: 'password',
          autocomplete: 'current-password',
          maxLength: 1024,
        }),
        label: format(t.passkeyRemovePasswordLabel!, { name: p.name }),
      },
    })),
    passkeyNameField: field(t, 'name', 'passkeyNameLabel', {
      id: 'passkey-name',
      maxLength: PASSKEY_NAME_MAX,
      error: nameError,
    }),
  };
}
