-- Second factors and the login policy (issue 17).

-- The kinds of second factor a user has ready ('otp', and those other modules add, src/factors/registry.ts),
-- maintained in the transaction that adds or removes one. Read with the user at sign-in, so a user without any
-- costs the login no statement (test/login/login-queries.test.ts).
ALTER TABLE users ADD COLUMN factor_kinds text[] NOT NULL DEFAULT '{}';

-- One TOTP authenticator per user (RFC 6238; ZITADEL's AddMyAuthFactorOTP). The secret is sealed with the master
-- key; it is ready once confirmed with a first code. last_step is the RFC 6238 time step of the last accepted
-- code: a code of that step or an earlier one is refused, so a code is used once (RFC 6238 §5.2).
CREATE TABLE user_totp (
  user_id       text        PRIMARY KEY CONSTRAINT user_totp_user_fk REFERENCES users (id) ON DELETE CASCADE,
  sealed_secret text        NOT NULL,
  confirmed_at  timestamptz,
  last_step     bigint      NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Ten single-use recovery codes per user, each stored as a keyed hash (HMAC under a key derived from the master
-- key, security.md §21); a used code is deleted.
CREATE TABLE user_recovery_codes (
  user_id    text        NOT NULL CONSTRAINT user_recovery_codes_user_fk REFERENCES users (id) ON DELETE CASCADE,
  code_hash  text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT user_recovery_codes_pkey PRIMARY KEY (user_id, code_hash)
);

-- The instance's login policy (ZITADEL's LoginPolicy). No row: the default (everything allowed, no forced MFA).
CREATE TABLE login_policy (
  singleton               boolean     PRIMARY KEY DEFAULT true CONSTRAINT login_policy_singleton CHECK (singleton),
  allow_username_password boolean     NOT NULL,
  allow_register          boolean     NOT NULL,
  allow_external_idp      boolean     NOT NULL,
  force_mfa               boolean     NOT NULL,
  passwordless_allowed    boolean     NOT NULL,
  created_at              timestamptz NOT NULL DEFAULT now(),
  changed_at              timestamptz NOT NULL DEFAULT now(),
  sequence                bigint      NOT NULL
);
