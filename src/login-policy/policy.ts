// The instance's login policy (ZITADEL's LoginPolicy): which ways of signing in the login offers, and whether a second
// factor is required. Organizations have none of their own: the instance's applies to all.

export interface LoginPolicy {
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  allowExternalIdp: boolean;
  /** Every user signs in with a second factor; one without is led through enrolling one (TOTP). */
  forceMfa: boolean;
  /** Passkeys may be used without a password (PASSWORDLESS_TYPE_ALLOWED). */
  passwordlessAllowed: boolean;
}

/** ZITADEL's defaults, and what Gatehouse did before the policy existed. */
export const DEFAULT_LOGIN_POLICY: LoginPolicy = Object.freeze({
  allowUsernamePassword: true,
  allowRegister: true,
  allowExternalIdp: true,
  forceMfa: false,
  passwordlessAllowed: true,
});
