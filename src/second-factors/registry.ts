// The kinds of second factor (kind.ts), in the order the login offers them. A new kind is one entry here and its
// name in users.factor_kinds while a user has one ready.
import type { FactorKind } from './kind.ts';
import { otpKind } from './otp-kind.ts';
import { passkeyKind } from './passkey-kind.ts';

export const FACTOR_KINDS: readonly FactorKind[] = [passkeyKind, otpKind];

export function factorKind(kind: string): FactorKind | undefined {
  return FACTOR_KINDS.find((k) => k.kind === kind);
}

/** The kinds a user has, known ones only, in the registry's order. */
export function kindsOf(stored: readonly string[]): FactorKind[] {
  return FACTOR_KINDS.filter((k) => stored.includes(k.kind));
}
