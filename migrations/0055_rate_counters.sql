-- Request counters shared by every instance (issue 24, several nodes): one fixed window per scope and key. Used for
-- self-registrations per client address and hour (issue 26 §5), which instances counting on their own admitted N
-- times over behind a balancer. The hot per-request limits stay in each process (README "Running in production").
CREATE TABLE rate_counters (
  scope             text        NOT NULL,
  key               text        NOT NULL,
  hits              integer     NOT NULL,
  window_started_at timestamptz NOT NULL,
  CONSTRAINT rate_counters_pkey PRIMARY KEY (scope, key)
);
CREATE INDEX rate_counters_window_idx ON rate_counters (window_started_at);
