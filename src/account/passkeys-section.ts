// The account page's passkeys: the list, each with a removal form asking for the password or a code
// (account/confirm.ts), and the field naming a new one.
import type { Queryable } from '../platform/db.ts';
import type { Texts } from '../views/i18n.ts';
import { listPasskeys, PASSKEY_NAME_MAX } from '../passkeys/service.ts';
import { field } from './fields.ts';

export async function passkeysSection(db: Queryable, t: Texts, userId: string, nameError?: string) {
  const passkeys = await listPasskeys(db, userId);
  return {
    passkeys: passkeys.map((p) => ({ id: p.id, name: p.name })),
    passkeyNameField: field(t, 'name', 'passkeyNameLabel', {
      id: 'passkey-name',
      maxLength: PASSKEY_NAME_MAX,
      error: nameError,
    }),
  };
}
