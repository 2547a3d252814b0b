-- The admin console's sessions on the server (security.md item 23): one row per signed-in browser, so that
-- "Sign out", a password change or reset, and locking, deactivating or removing the user end it on every node at
-- the next request (the console reads its row per request; src/users/console-sessions.ts). The cookie holds a
-- random id of 256 bits; the row holds only its SHA-256, so a copy of this table signs no one in. expires_at is the
-- earlier of the idle limit (moved on at most once a minute) and the absolute one; expired rows go with the
-- background sweep of expired OIDC rows. op_session_uid is the uid of the OP session (an oidc_payloads Session row)
-- whose sign-in created it: the console is open only while that session lives, so signing out anywhere (the account
-- page, an app's RP-initiated logout) ends the console too (security.md item 23).
CREATE TABLE console_sessions (
  id_hash        text        PRIMARY KEY,
  user_id        text        NOT NULL CONSTRAINT console_sessions_user_fk REFERENCES users (id) ON DELETE CASCADE,
  op_session_uid text        NOT NULL,
  created_at     timestamptz NOT NULL,
  seen_at        timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);
CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at);
