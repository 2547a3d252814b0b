// Confirmation of a change to how an account signs in (issue 17: removing a factor or a passkey, renewing the
// recovery codes): the current password, or a code of the user's authenticator app, or a recovery code. Each is
// counted toward the lockout like a sign-in (security.md §16), and the password waits its turn in the hashing queue.
import type { FastifyRequest } from 'fastify';
import { countedCheck } from '../factors/attempts.ts';
import type { FactorCheck } from '../factors/kind.ts';
import { otpKind } from '../factors/otp-kind.ts';
import { recoveryKind } from '../factors/recovery-kind.ts';
import { formField } from '../login/interaction.ts';
import type { UserRow } from '../users/lookup.ts';
import type { AccountDeps } from './deps.ts';

/** The form's `code` when one was typed, else its `password`; 'busy' when the hashing queue is full. */
export async function confirmChange(
  deps: AccountDeps,
  request: FastifyRequest,
  user: UserRow,
): Promise<FactorCheck | 'busy'> {
  const attempt = { userId: user.id, ip: request.ip, uid: '' };
  const code = (formField(request, 'code') ?? '').trim();
  if (code) {
    const kind = /^\d{6}$/.test(code) ? otpKind : recoveryKind;
    return kind.verify(deps, attempt, (name) => (name === 'code' ? code : undefined));
  }
  const password = formField(request, 'password') ?? '';
  const slot = deps.hashing.tryAdmit(request.ip);
  if (!slot) return 'busy';
  try {
    return await countedCheck(
      deps.db,
      deps.config.lockout,
      attempt,
      async () =>
        user.password_hash && password
          ? slot.verify(password, user.password_hash)
          : slot.verifyDecoy(password).then(() => false),
      'account', // a password: its own counter, never the second factor's (security.md item 24)
    );
  } finally {
    slot.release();
  }
}
