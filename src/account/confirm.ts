// Confirmation of a sensitive change on the account pages (OWASP ASVS 5.0 §7.5.1): changing the
// e-mail address, adding or removing a second factor or a passkey, renewing the recovery codes. A valid session is
// not enough, since whoever sits at an unlocked browser has one: each such form carries the current password, or a
// code of the user's authenticator app, or a recovery code. Each is counted toward the lockout like a sign-in,
// so the form is no guessing oracle, and the password waits its turn in the hashing queue.
// A user with neither a password nor a code (signed in with a passkey or an identity provider only) confirms by
// signing in again: a sign-in of this session less than REAUTH_SECONDS old stands in for the form's fields.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { countedCheck } from '../factors/attempts.ts';
import type { FactorCheck } from '../second-factors/kind.ts';
import { otpKind } from '../second-factors/otp-kind.ts';
import { recoveryKind } from '../second-factors/recovery-kind.ts';
import { format, type Texts } from '../views/i18n.ts';
import { formField } from '../web/forms.ts';
import { HashRefusal } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { signedInWithin } from '../oidc/recent-sign-in.ts';
import type { UserRow } from '../users/lookup.ts';
import type { AccountDeps } from './deps.ts';
import type { AccountSession } from './session.ts';
import type { ConfirmMode } from '../views/account-factors.ts';

/** The user has something to type into the confirmation fields: a password, or an authenticator app (whose
 *  recovery codes come with it). */
export const canTypeConfirmation = (user: UserRow) =>
  Boolean(user.password_hash) || user.factor_kinds.includes(otpKind.kind);

/** The session was signed in (again) within the last REAUTH_SECONDS. */
export const signedInRecently = (session: AccountSession) => signedInWithin(session.authTime);

/** The form's `code` when one was typed, else its `password`; the refusal when the hashing queue has no place. */
export async function confirmChange(
  deps: AccountDeps,
  request: FastifyRequest,
  user: UserRow,
  session: AccountSession,
): Promise<FactorCheck | HashRefusal> {
  if (!canTypeConfirmation(user)) return { ok: signedInRecently(session) };
  const attempt = { userId: user.id, ip: request.ip, uid: '' };
  const code = (formField(request, 'code') ?? '').trim();
  if (code) {
    const kind = /^\d{6}$/.test(code) ? otpKind : recoveryKind;
    return kind.verify(deps, attempt, (name) => (name === 'code' ? code : undefined));
  }
  const password = formField(request, 'password') ?? '';
  const slot = deps.hashing.tryAdmit(request.ip);
  if (slot instanceof HashRefusal) return slot;
  try {
    return await countedCheck(
      deps.db,
      deps.config.lockout,
      attempt,
      async () =>
        user.password_hash && password
          ? slot.verify(password, user.password_hash)
          : slot.verifyDecoy(password).then(() => false),
      'account', // a password: its own counter, apart from the second factor's, which a correct password never resets
    );
  } finally {
    slot.release();
  }
}

/** What the page says when a change is not confirmed. */
export interface Refusal {
  status: number;
  alert: string | undefined;
}

/** Checks the form's confirmation: undefined when the change may go ahead, else the refusal for the page (with
 *  its Retry-After header set when the answer is to wait). */
export async function refusedConfirmation(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  signedIn: { session: AccountSession; user: UserRow; t: Texts },
): Promise<Refusal | undefined> {
  const { t } = signedIn;
  const check = await confirmChange(deps, request, signedIn.user, signedIn.session);
  if (check instanceof HashRefusal) return answerHashRefusal(reply, check, t);
  if (check.ok) return undefined;
  if (check.retryAfter) {
    reply.header('retry-after', String(check.retryAfter));
    return { status: 429, alert: format(t.errorLocked!, { seconds: check.retryAfter }) };
  }
  return { status: 400, alert: canTypeConfirmation(signedIn.user) ? t.errorFactorConfirm : t.errorReauth };
}

/** How the pages ask for the confirmation of this user in this session. */
export function confirmMode(user: UserRow, session: AccountSession): ConfirmMode {
  if (canTypeConfirmation(user)) return 'typed';
  return signedInRecently(session) ? 'recent' : 'signIn';
}
