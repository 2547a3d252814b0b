-- Accounts people can manage (issue 16): the password complexity policy, "change required", one-time codes for
-- e-mail verification and password reset, and the outbox of mails to send.

-- The instance's password complexity policy (ZITADEL's PasswordComplexityPolicy). No row: the default (length 8,
-- no composition rule, security.md §15).
CREATE TABLE password_complexity_policy (
  singleton     boolean     PRIMARY KEY DEFAULT true CONSTRAINT password_complexity_policy_singleton CHECK (singleton),
  min_length    integer     NOT NULL CONSTRAINT password_complexity_policy_min_length CHECK (min_length BETWEEN 8 AND 1024),
  has_uppercase boolean     NOT NULL,
  has_lowercase boolean     NOT NULL,
  has_number    boolean     NOT NULL,
  has_symbol    boolean     NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  sequence      bigint      NOT NULL
);

-- Set by an import with passwordChangeRequired and by SetHumanPassword without noChangeRequired: the user chooses
-- a new password at the next sign-in, before the authorization completes.
ALTER TABLE users ADD COLUMN password_change_required boolean NOT NULL DEFAULT false;

-- One-time codes sent by mail. Only a keyed hash of the code is stored (security.md §21); a code is used once,
-- expires, and dies after a few wrong tries. `email` is the address a verification code verifies: a code sent to
-- an address the user has since changed verifies nothing.
CREATE TABLE user_codes (
  id         text        PRIMARY KEY,
  user_id    text        NOT NULL CONSTRAINT user_codes_user_fk REFERENCES users (id) ON DELETE CASCADE,
  purpose    text        NOT NULL CONSTRAINT user_codes_purpose_check CHECK (purpose IN ('email_verification', 'password_reset')),
  code_hash  text        NOT NULL,
  email      text,
  attempts   integer     NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX user_codes_user_idx ON user_codes (user_id, purpose, created_at);

-- Mails accepted for sending, written in the transaction of the change that sends them, so none is lost when SMTP
-- is down; a background sender on every instance claims due rows with a lease (FOR UPDATE SKIP LOCKED) and retries
-- with backoff. The message (it holds one-time codes) is sealed with the master key.
CREATE TABLE mail_outbox (
  id              text        PRIMARY KEY,
  recipient       text        NOT NULL,
  sealed_message  text        NOT NULL,
  attempts        integer     NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz,
  sent_at         timestamptz,
  last_error      text
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
