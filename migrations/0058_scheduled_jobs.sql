-- Issue 24 ("Every core"): periodic background jobs run once per deployment, however many worker processes and
-- nodes share the database. A process runs a job only after moving its row's next_run_at forward in one statement
-- (src/platform/jobs.ts), which works through a transaction pooler, where session advisory locks do not.
CREATE TABLE scheduled_jobs (
  name text PRIMARY KEY,
  next_run_at timestamptz NOT NULL
);
