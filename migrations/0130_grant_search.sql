-- ListUserGrants by user name, e-mail or display name (ZITADEL's UserGrantQuery; issue 21 "Every list and lookup is
-- index-backed"). A grant's user may belong to any org, so the per-org indexes of 0080_lifecycle.sql cannot find
-- them: these find the few users whose lower(column) matches, in every org (text_pattern_ops: LIKE 'prefix%' whatever
-- the collation), and user_grants_user_idx their grants. Without them such a query read every grant of the org.
CREATE INDEX users_user_name_pattern_idx ON users (lower(user_name) text_pattern_ops);
CREATE INDEX users_email_pattern_idx ON users (lower(email) text_pattern_ops);
CREATE INDEX users_display_name_pattern_idx ON users (lower(display_name) text_pattern_ops);
-- The histogram detail of 0110_user_search_statistics.sql, for the same reason (ANALYZE samples no more rows for it).
ALTER INDEX users_user_name_pattern_idx ALTER COLUMN 1 SET STATISTICS 1000;
ALTER INDEX users_email_pattern_idx ALTER COLUMN 1 SET STATISTICS 1000;
ALTER INDEX users_display_name_pattern_idx ALTER COLUMN 1 SET STATISTICS 1000;
