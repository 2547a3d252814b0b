-- Passkeys and security keys (issue 17): WebAuthn credentials of human users, and the challenges of ceremonies
-- in progress.

-- A registered credential. Every one is discoverable and verifies its user (registration requires both), so each
-- serves passwordless sign-in and the second factor alike. `credential_id` and `public_key` are base64url text
-- (the same in pg and PGlite); the counter and the backup flags (WebAuthn §6.1 BE/BS) are kept from the last use.
CREATE TABLE webauthn_credentials (
  id              text        PRIMARY KEY,
  user_id         text        NOT NULL CONSTRAINT webauthn_credentials_user_fk REFERENCES users (id) ON DELETE CASCADE,
  credential_id   text        NOT NULL,
  public_key      text        NOT NULL,
  sign_count      bigint      NOT NULL DEFAULT 0,
  backup_eligible boolean     NOT NULL,
  backup_state    boolean     NOT NULL,
  transports      text[]      NOT NULL DEFAULT '{}',
  name            text        NOT NULL CONSTRAINT webauthn_credentials_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_used_at    timestamptz
);
CREATE UNIQUE INDEX webauthn_credentials_credential_unique ON webauthn_credentials (credential_id);
CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id);

-- One pending challenge per ceremony and browser: `binding` is the login interaction's ID or the account page's
-- session ID, so a challenge is good only in the browser it was issued to. A new one replaces the old; verifying
-- deletes it (single use); it expires after a few minutes.
CREATE TABLE webauthn_challenges (
  purpose    text        NOT NULL CONSTRAINT webauthn_challenges_purpose_check CHECK (purpose IN ('register', 'sign_in', 'second_factor')),
  binding    text        NOT NULL,
  challenge  text        NOT NULL,
  user_id    text        CONSTRAINT webauthn_challenges_user_fk REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (purpose, binding)
);
CREATE INDEX webauthn_challenges_expiry_idx ON webauthn_challenges (expires_at);
