-- Issue 21 "Every object's whole life": locked users, project members, and the indexes that keep every list and
-- lookup of the management API an index scan at a million users (test/management/list-plans.test.ts).

-- LockUser: a locked user is neither active nor inactive (ZITADEL's USER_STATE_LOCKED); every check of
-- state = 'active' (sign-in, tokens, machine grants) refuses it as it refuses an inactive one.
ALTER TABLE users DROP CONSTRAINT users_state_check;
ALTER TABLE users ADD CONSTRAINT users_state_check CHECK (state IN ('active', 'inactive', 'locked'));

-- Project members (AddProjectMember): roles on one project, beside those on the instance and on orgs.
ALTER TABLE memberships DROP CONSTRAINT memberships_resource_type_check;
ALTER TABLE memberships ADD CONSTRAINT memberships_resource_type_check
  CHECK (resource_type IN ('instance', 'org', 'project'));

-- ListUsers within the caller's org: text queries compare lower(column) (platform/search.ts), which these serve
-- for EQUALS and STARTS_WITH in either case (text_pattern_ops: LIKE 'prefix%' whatever the collation); sorting by
-- a column and the plain listing walk the same indexes. users_org_idx is covered by the first.
CREATE INDEX users_org_user_name_idx ON users (org_id, lower(user_name) text_pattern_ops);
CREATE INDEX users_org_email_idx ON users (org_id, lower(email) text_pattern_ops);
CREATE INDEX users_org_display_name_idx ON users (org_id, lower(display_name) text_pattern_ops);
CREATE INDEX users_org_created_idx ON users (org_id, id);
DROP INDEX users_org_idx;

-- ListOrgs by name (the unique index on lower(name) compares by collation, which LIKE cannot use) and by domain.
CREATE INDEX orgs_name_pattern_idx ON orgs (lower(name) text_pattern_ops);
CREATE INDEX org_domains_domain_pattern_idx ON org_domains (lower(domain) text_pattern_ops);

-- A membership's position in the event log (Member.details.sequence); 0 for memberships from before.
ALTER TABLE memberships ADD COLUMN sequence bigint NOT NULL DEFAULT 0;
