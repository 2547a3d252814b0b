// The seam second factors plug into: a kind of factor says which of it a user has, how the login's second-factor
// step asks for it and how it checks the answer. TOTP (otp-kind.ts) is one, passkeys (passkey-kind.ts) another,
// recovery codes (recovery-kind.ts) stand in for either. The kinds live in registry.ts; the step that uses them is
// login/second-factor-flow.ts. A kind brings its page, so the kinds sit above the domains whose checks they call
// (factors/, passkeys/): those store and verify, and render nothing.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { View } from '../views/layout.ts';
import type { FactorStepProps } from '../views/factors.ts';
import type { CheckRefused } from '../factors/attempts.ts';

/** What a kind may use. */
export interface FactorDeps {
  db: Db;
  secrets: SecretBox;
  config: Config;
}

/** The sign-in a factor is asked for: the verified user, in one interaction, from one client address. */
export interface FactorAttempt {
  userId: string;
  /** The interaction's ID: what a challenge is bound to. */
  uid: string;
  ip: string;
}

/** One factor of a user, as ListMyAuthFactors reports it. */
export interface FactorEntry {
  kind: string;
  ready: boolean;
  /** Kinds a user may have several of (WebAuthn keys) name each. */
  id?: string;
  name?: string;
}

/** The page that asks for the factor: a view given the step's form (views/factors.ts FactorStep frames it), with
 *  whatever else it shows closed over. `state` rides, sealed, in the step's ticket to verify() (a WebAuthn
 *  challenge, say). */
export interface FactorPrompt {
  view: View<FactorStepProps>;
  state?: Record<string, unknown>;
  /** The view loads the passkey script (WebAuthn): the page's CSP allows `script-src 'self'`. */
  script?: boolean;
}

/** `amr`: the methods the answer proved when they depend on it (a passkey: `hwk` or `swk`), else the kind's. */
export type FactorCheck = { ok: true; amr?: string[] } | CheckRefused;

export interface FactorKind {
  /** The name stored in users.factor_kinds (migration 0140) while the user has a ready factor of this kind. */
  kind: string;
  /** The authentication method reference it adds (RFC 8176 §2): 'otp', 'hwk', 'swk'. */
  amr: string;
  /** The text key of its name on the pages (views/locales). */
  labelKey: string;
  list(deps: FactorDeps, userId: string): Promise<FactorEntry[]>;
  prompt(deps: FactorDeps, attempt: FactorAttempt): Promise<FactorPrompt>;
  /** Checks the posted form; a failure counts toward the lockout (the kind does it, so it counts once). */
  verify(
    deps: FactorDeps,
    attempt: FactorAttempt,
    field: (name: string) => string | undefined,
    state?: Record<string, unknown>,
  ): Promise<FactorCheck>;
}
