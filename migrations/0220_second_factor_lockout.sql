-- Second-factor failures are counted on their own (security.md item 24, RFC 4226 §7.3): scope 'factor' keyed by
-- the user ID. A correct password clears the 'account' row only, so it no longer forgets wrong codes; a correct
-- second factor clears the 'factor' row. The lockout policy gets ZITADEL's maxOtpAttempts, the budget of that
-- counter; an existing policy keeps the one budget it had for both.
ALTER TABLE login_failures DROP CONSTRAINT login_failures_scope_check;
ALTER TABLE login_failures ADD CONSTRAINT login_failures_scope_check CHECK (scope IN ('account', 'factor', 'ip'));

ALTER TABLE lockout_policy ADD COLUMN max_otp_attempts integer;
UPDATE lockout_policy SET max_otp_attempts = max_password_attempts;
ALTER TABLE lockout_policy ALTER COLUMN max_otp_attempts SET NOT NULL;
ALTER TABLE lockout_policy ADD CONSTRAINT lockout_policy_max_otp_attempts CHECK (max_otp_attempts BETWEEN 1 AND 1000);
