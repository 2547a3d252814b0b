// TOTP as a kind of second factor (kind.ts): the login asks for a six-digit code.
import type { FactorKind } from './kind.ts';
import { checkOtp, OTP_KIND } from './otp.ts';
import { findTotp } from './queries.ts';
import { OtpPromptPage } from '../views/factors.ts';

export const otpKind: FactorKind = {
  kind: OTP_KIND,
  amr: 'otp', // RFC 8176 §2
  labelKey: 'factorOtp',
  async list(deps, userId) {
    const row = await findTotp(deps.db, userId);
    return row ? [{ kind: OTP_KIND, ready: row.confirmed_at !== null }] : [];
  },
  async prompt() {
    return { view: OtpPromptPage };
  },
  verify(deps, attempt, field) {
    return checkOtp(deps, attempt, field('code') ?? '');
  },
};
