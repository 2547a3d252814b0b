// Passkeys and security keys as a second factor (kind.ts): after the password the user answers
// with one of their own credentials. The challenge is stored bound to the interaction, as for passwordless
// sign-in; a failed answer counts toward the lockout like a wrong code.
import type { FactorKind } from './kind.ts';
import { countedCheck } from '../factors/attempts.ts';
import { AppError, Code } from '../platform/errors.ts';
import { PasskeyFactorPage } from '../views/passkeys.ts';
import {
  finishSecondFactor,
  listPasskeys,
  relyingParty,
  startSecondFactor,
  WEBAUTHN_KIND,
} from '../passkeys/service.ts';

export const passkeyKind: FactorKind = {
  // ZITADEL's name for a WebAuthn second factor; ListMyAuthFactors shows each credential as `u2f`
  kind: WEBAUTHN_KIND,
  amr: 'hwk', // replaced by the credential's own (hwk or swk) when it is checked
  labelKey: 'factorPasskey',
  async list(deps, userId) {
    const keys = await listPasskeys(deps.db, userId);
    return keys.map((k) => ({ kind: WEBAUTHN_KIND, ready: true, id: k.id, name: k.name }));
  },
  async prompt(deps, attempt) {
    const rp = relyingParty(deps.config.issuer);
    const options = await startSecondFactor(deps.db, rp, attempt.userId, { binding: attempt.uid });
    return { view: PasskeyFactorPage(JSON.stringify(options)), script: true };
  },
  async verify(deps, attempt, field) {
    let amr: string[] | undefined;
    const check = await countedCheck(deps.db, deps.config.lockout, attempt, async () => {
      try {
        const rp = relyingParty(deps.config.issuer);
        const binding = { binding: attempt.uid };
        amr = (await finishSecondFactor(deps.db, rp, attempt.userId, binding, field('credential') ?? '')).amr;
        return true;
      } catch (error) {
        if (error instanceof AppError && error.code === Code.InvalidArgument) return false;
        throw error;
      }
    });
    return check.ok ? { ok: true, amr } : check;
  },
};
