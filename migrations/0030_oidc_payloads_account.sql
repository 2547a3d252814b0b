-- DeactivateUser deletes a user's sessions, grants and tokens by the account they belong to (issue 6).
CREATE INDEX oidc_payloads_account_idx ON oidc_payloads ((payload->>'accountId')) WHERE payload ? 'accountId';
