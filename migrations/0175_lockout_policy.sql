-- Issue 22: the instance's lockout policy (ZITADEL's LockoutPolicy, admin UpdateLockoutPolicy). No row: the
-- default, GATEHOUSE_LOCKOUT_MAX_ATTEMPTS. The sign-in reads it inside its counting statement
-- (lockout/queries.ts), so a change holds on every instance at the next attempt. The bounds are the variable's:
-- a lock is always time-based and never disabled (security.md §16), so 0 (ZITADEL's "no lockout") is refused.
CREATE TABLE lockout_policy (
  singleton             boolean     PRIMARY KEY DEFAULT true CONSTRAINT lockout_policy_singleton CHECK (singleton),
  max_password_attempts integer     NOT NULL
    CONSTRAINT lockout_policy_max_password_attempts CHECK (max_password_attempts BETWEEN 1 AND 1000),
  created_at            timestamptz NOT NULL DEFAULT now(),
  changed_at            timestamptz NOT NULL DEFAULT now(),
  sequence              bigint      NOT NULL
);
