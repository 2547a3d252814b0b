-- OIDC: the application model (projects, OIDC and API apps, their keys), oidc-provider's storage and the signing
-- keys. Constraint names are part of the contract (platform/errors.ts maps them).

CREATE TABLE projects (
  id         text        PRIMARY KEY,
  org_id     text        NOT NULL CONSTRAINT projects_org_fk REFERENCES orgs (id),
  name       text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  changed_at timestamptz NOT NULL DEFAULT now(),
  sequence   bigint      NOT NULL
);
CREATE UNIQUE INDEX projects_name_unique ON projects (org_id, lower(name));

-- OIDC apps and API apps share one table: both are OAuth clients of a project (client_id is what RPs send).
CREATE TABLE apps (
  id                          text        PRIMARY KEY,
  project_id                  text        NOT NULL CONSTRAINT apps_project_fk REFERENCES projects (id) ON DELETE CASCADE,
  name                        text        NOT NULL,
  kind                        text        NOT NULL CONSTRAINT apps_kind_check CHECK (kind IN ('oidc', 'api')),
  client_id                   text        NOT NULL,
  secret_hash                 text,
  auth_method                 text        NOT NULL CONSTRAINT apps_auth_method_check
                                          CHECK (auth_method IN ('basic', 'post', 'none', 'private_key_jwt')),
  app_type                    text        NOT NULL DEFAULT 'web' CONSTRAINT apps_app_type_check CHECK (app_type IN ('web', 'user_agent', 'native')),
  redirect_uris               text[]      NOT NULL DEFAULT '{}',
  post_logout_redirect_uris   text[]      NOT NULL DEFAULT '{}',
  response_types              text[]      NOT NULL DEFAULT '{}',
  grant_types                 text[]      NOT NULL DEFAULT '{}',
  access_token_type           text        NOT NULL DEFAULT 'opaque' CONSTRAINT apps_access_token_type_check CHECK (access_token_type IN ('opaque', 'jwt')),
  id_token_userinfo_assertion boolean     NOT NULL DEFAULT false,
  dev_mode                    boolean     NOT NULL DEFAULT false,
  state                       text        NOT NULL DEFAULT 'active' CONSTRAINT apps_state_check CHECK (state IN ('active', 'inactive')),
  created_at                  timestamptz NOT NULL DEFAULT now(),
  changed_at                  timestamptz NOT NULL DEFAULT now(),
  sequence                    bigint      NOT NULL,
  CONSTRAINT apps_secret_check CHECK ((auth_method IN ('basic', 'post')) = (secret_hash IS NOT NULL))
);
CREATE UNIQUE INDEX apps_client_id_unique ON apps (client_id);
CREATE INDEX apps_project_idx ON apps (project_id);

-- Public keys of apps using private_key_jwt. Private keys are handed out once, never stored.
CREATE TABLE app_keys (
  id         text        PRIMARY KEY,
  app_id     text        NOT NULL CONSTRAINT app_keys_app_fk REFERENCES apps (id) ON DELETE CASCADE,
  public_jwk jsonb       NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_keys_app_idx ON app_keys (app_id);

-- oidc-provider's models (sessions, codes, tokens, grants, interactions, replay markers), one row per object.
-- uid is NOT unique: a session id rotation inserts a second row with the same uid (oidc-provider-findings §15).
CREATE TABLE oidc_payloads (
  model       text        NOT NULL,
  id          text        NOT NULL,
  payload     jsonb       NOT NULL,
  grant_id    text,
  uid         text,
  expires_at  timestamptz,
  consumed_at timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT oidc_payloads_pkey PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant_idx ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads_uid_idx ON oidc_payloads (uid, updated_at) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads_expires_idx ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;

-- Token signing keys (security.md §9): the private JWK sealed with the master key. A key is published from
-- created_at, signs from activates_at, and stays published after a newer key activates until its tokens expire.
CREATE TABLE signing_keys (
  kid          text        PRIMARY KEY,
  alg          text        NOT NULL,
  public_jwk   jsonb       NOT NULL,
  private_jwk  text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  activates_at timestamptz NOT NULL
);
CREATE INDEX signing_keys_activates_idx ON signing_keys (activates_at);
