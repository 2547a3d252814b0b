// A recovery code at the second-factor step: offered to every user who has a factor, in place of it.
// Not in the registry: nobody has it as a factor of its own. A recovery code is a one-time password, so its
// method reference is 'otp' (RFC 8176 §2).
import { RecoveryFactorPage } from '../views/factors.ts';
import type { FactorKind } from './kind.ts';
import { countedCheck } from '../factors/attempts.ts';
import { countRecoveryCodes } from '../factors/queries.ts';
import { useRecoveryCode } from '../factors/recovery-codes.ts';

export const recoveryKind: FactorKind = {
  kind: 'recovery',
  amr: 'otp',
  labelKey: 'factorRecovery',
  async list(deps, userId) {
    return (await countRecoveryCodes(deps.db, userId)) ? [{ kind: 'recovery', ready: true }] : [];
  },
  async prompt() {
    return { view: RecoveryFactorPage };
  },
  verify(deps, attempt, field) {
    const code = field('code') ?? '';
    return countedCheck(deps.db, deps.config.lockout, attempt, () =>
      useRecoveryCode(deps.db, deps.secrets, attempt.userId, code),
    );
  },
};
