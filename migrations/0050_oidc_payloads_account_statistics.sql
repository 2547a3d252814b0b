-- Issue 24 (at production size): removing or listing a user's sessions and tokens looks rows up by
-- payload->>'accountId' (oidc_payloads_account_idx). PostgreSQL keeps no statistics for the expression of a partial
-- index, so it guessed 0.5% of all rows per account (50,000 of 10 million stored tokens, for about ten) and chose hash
-- joins over the whole table. Statistics on the expression itself give it the real figure at every size.
CREATE STATISTICS oidc_payloads_account_stats ON ((payload->>'accountId')) FROM oidc_payloads;
