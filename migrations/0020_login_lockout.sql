-- Failed-login counters for the time-based lockout (security.md §16). Kept in the database so every instance
-- behind a load balancer counts the same failures and honours the same lock.
-- scope 'account' is keyed by the user ID, or by the lower-cased login name as typed when no such user exists (so
-- unknown names lock exactly like real ones, §17); scope 'ip' by the client address.
CREATE TABLE login_failures (
  scope             text        NOT NULL CONSTRAINT login_failures_scope_check CHECK (scope IN ('account', 'ip')),
  key               text        NOT NULL,
  failures          integer     NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until      timestamptz,
  CONSTRAINT login_failures_pkey PRIMARY KEY (scope, key)
);
CREATE INDEX login_failures_window_idx ON login_failures (window_started_at);
