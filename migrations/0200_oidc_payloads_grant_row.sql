-- The grant row of a grant ID, by one index entry (issue 18). Refresh, code exchange, the authorization request's
-- read-ahead and token lookups each check that the grant behind a token still stands: model = 'Grant' AND grant_id
-- = $1. oidc_payloads_grant_idx holds every row of a grant (hundreds after a day of silent re-authentication), and
-- the primary key only leads with model, so a plan PostgreSQL made while the table was small and then kept (a named
-- statement's generic plan, with no ANALYZE since) read every Grant entry of the primary key per check: 20,000 at
-- 20,000 grants. One row per grant: the id of a Grant row is the hash of its grant ID (provider/adapter.ts).
CREATE UNIQUE INDEX oidc_payloads_grant_row_idx ON oidc_payloads (grant_id) WHERE model = 'Grant';
