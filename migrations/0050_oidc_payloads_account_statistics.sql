-- Issue 24 (at production size): removing or listing a user's sessions and tokens looks rows up by
-- payload->>'accountId' (oidc_payloads_account_idx). PostgreSQL keeps no statistics for the expression of a partial
-- index, so it guessed 0.5% of all rows per account (50,000 of 10 million stored tokens, for about ten): the plan
-- stayed on the indexes, but its estimated cost passed jit_above_cost and each DeactivateUser compiled it first
-- (12-109 ms measured, against 0.2-0.4 ms). Statistics on the expression itself give the planner the real figure.
CREATE STATISTICS oidc_payloads_account_stats ON ((payload->>'accountId')) FROM oidc_payloads;
