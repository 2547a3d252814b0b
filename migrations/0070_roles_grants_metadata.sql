-- Issue 21 "Project roles and grants", "Roles and org claims in tokens": project settings and state, project roles,
-- user grants, user metadata and the apps' role assertions. Constraint names are part of the contract
-- (platform/errors.ts maps them).

-- ZITADEL's project settings, all off by default (UpdateProject).
ALTER TABLE projects
  ADD COLUMN state text NOT NULL DEFAULT 'active' CONSTRAINT projects_state_check CHECK (state IN ('active', 'inactive')),
  ADD COLUMN project_role_assertion boolean NOT NULL DEFAULT false,
  ADD COLUMN project_role_check boolean NOT NULL DEFAULT false,
  ADD COLUMN has_project_check boolean NOT NULL DEFAULT false;

-- Roles in the ID token and in JWT access tokens (UpdateOIDCAppConfig idTokenRoleAssertion,
-- accessTokenRoleAssertion).
ALTER TABLE apps
  ADD COLUMN id_token_role_assertion boolean NOT NULL DEFAULT false,
  ADD COLUMN access_token_role_assertion boolean NOT NULL DEFAULT false;

CREATE TABLE project_roles (
  project_id   text        NOT NULL CONSTRAINT project_roles_project_fk REFERENCES projects (id) ON DELETE CASCADE,
  role_key     text        NOT NULL,
  display_name text        NOT NULL,
  role_group   text        NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  changed_at   timestamptz NOT NULL DEFAULT now(),
  sequence     bigint      NOT NULL,
  CONSTRAINT project_roles_pkey PRIMARY KEY (project_id, role_key)
);

-- One org lends a project to another (the B2B case): the granted org's owners may grant their own users the lent
-- roles, a subset of the project's. Removing a role takes it out of every project grant too.
CREATE TABLE project_grants (
  id             text        PRIMARY KEY,
  project_id     text        NOT NULL CONSTRAINT project_grants_project_fk REFERENCES projects (id) ON DELETE CASCADE,
  granted_org_id text        NOT NULL CONSTRAINT project_grants_org_fk REFERENCES orgs (id) ON DELETE CASCADE,
  role_keys      text[]      NOT NULL DEFAULT '{}',
  state          text        NOT NULL DEFAULT 'active' CONSTRAINT project_grants_state_check CHECK (state IN ('active', 'inactive')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  changed_at     timestamptz NOT NULL DEFAULT now(),
  sequence       bigint      NOT NULL
);
CREATE UNIQUE INDEX project_grants_org_unique ON project_grants (project_id, granted_org_id);
CREATE INDEX project_grants_granted_org_idx ON project_grants (granted_org_id, created_at);

-- A user's roles on a project, held by an org (org_id: the resource owner of the grant: the project's owner, or the
-- granted org of the project grant it is made under). Role keys are checked by the service; removing a role takes
-- it out of every grant.
CREATE TABLE user_grants (
  id         text        PRIMARY KEY,
  user_id    text        NOT NULL CONSTRAINT user_grants_user_fk REFERENCES users (id) ON DELETE CASCADE,
  project_id text        NOT NULL CONSTRAINT user_grants_project_fk REFERENCES projects (id) ON DELETE CASCADE,
  org_id     text        NOT NULL CONSTRAINT user_grants_org_fk REFERENCES orgs (id) ON DELETE CASCADE,
  project_grant_id text    CONSTRAINT user_grants_project_grant_fk REFERENCES project_grants (id) ON DELETE CASCADE,
  role_keys  text[]      NOT NULL DEFAULT '{}',
  state      text        NOT NULL DEFAULT 'active' CONSTRAINT user_grants_state_check CHECK (state IN ('active', 'inactive')),
  created_at timestamptz NOT NULL DEFAULT now(),
  changed_at timestamptz NOT NULL DEFAULT now(),
  sequence   bigint      NOT NULL
);
-- One active grant of a project per user (issue 21: a second one is 409).
CREATE UNIQUE INDEX user_grants_active_unique ON user_grants (user_id, project_id) WHERE state = 'active';
CREATE INDEX user_grants_project_idx ON user_grants (project_id);
CREATE INDEX user_grants_user_idx ON user_grants (user_id);
CREATE INDEX user_grants_project_grant_idx ON user_grants (project_grant_id) WHERE project_grant_id IS NOT NULL;
CREATE INDEX user_grants_org_idx ON user_grants (org_id, created_at);

-- Key/value metadata of a user (SetUserMetadata); the claim urn:zitadel:iam:user:metadata carries it.
CREATE TABLE user_metadata (
  user_id    text        NOT NULL CONSTRAINT user_metadata_user_fk REFERENCES users (id) ON DELETE CASCADE,
  key        text        NOT NULL,
  value      bytea       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  changed_at timestamptz NOT NULL DEFAULT now(),
  sequence   bigint      NOT NULL,
  CONSTRAINT user_metadata_pkey PRIMARY KEY (user_id, key)
);
