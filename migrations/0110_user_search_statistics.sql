-- ListUsers' text queries (migrations/0080_lifecycle.sql) are planned from the statistics ANALYZE keeps on the
-- indexed expressions. With the default 100 histogram buckets a prefix such as 'user777' of 100,000 addresses was
-- now and then estimated at 1,000 rows instead of about 100, and the planner then walked the primary key in
-- creation order through the whole org (found by test/management/list-plans.test.ts, about one ANALYZE in five).
-- A thousand buckets keep the estimate within a few rows; ANALYZE of users reads 300,000 sample rows for it.
ALTER INDEX users_org_user_name_idx ALTER COLUMN 2 SET STATISTICS 1000;
ALTER INDEX users_org_email_idx ALTER COLUMN 2 SET STATISTICS 1000;
ALTER INDEX users_org_display_name_idx ALTER COLUMN 2 SET STATISTICS 1000;
