// TOTP as a kind of second factor (kind.ts): the login asks for a six-digit code.
import { OtpFactorPage } from '../views/factors.ts';
import type { FactorKind } from './kind.ts';
import { checkOtp, OTP_KIND } from '../factors/otp.ts';
import { findTotp } from '../factors/queries.ts';

export const otpKind: FactorKind = {
  kind: OTP_KIND,
  amr: 'otp', // RFC 8176 §2
  labelKey: 'factorOtp',
  async list(deps, userId) {
    const row = await findTotp(deps.db, userId);
    return row ? [{ kind: OTP_KIND, ready: row.confirmed_at !== null }] : [];
  },
  async prompt() {
    return { view: OtpFactorPage };
  },
  verify(deps, attempt, field) {
    return checkOtp(deps, attempt, field('code') ?? '');
  },
};
