-- The console's users page (issue 22) and ListUsers sorted by user name (USER_FIELD_NAME_USER_NAME) read an org's
-- users in lower(user_name) order, a page at a time. users_org_user_name_idx cannot give that order: its
-- text_pattern_ops compare bytes, for LIKE prefixes, not in the column's collation. Without this index every page
-- read and sorted all the org's users, whose rows lie on as many heap pages as there are users (1,000 pages for a
-- page of 20 at 1,000 users per org, bench/console-pages.ts); with it a page reads its own rows (and those it skips).
CREATE INDEX users_org_user_name_order_idx ON users (org_id, lower(user_name), id);
