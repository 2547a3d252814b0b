-- Core model: the instance, the event log, organizations, users and memberships.
-- Constraint names are part of the contract: platform/errors.ts maps violations to API errors by name.

-- One row: the instance this database serves. Its domain is the host of the issuer (compat.md §5).
CREATE TABLE instance (
  id             text        PRIMARY KEY,
  domain         text        NOT NULL,
  default_org_id text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  singleton      boolean     NOT NULL DEFAULT true CONSTRAINT instance_singleton CHECK (singleton),
  CONSTRAINT instance_one_row UNIQUE (singleton)
);

-- The append-only event log. `sequence` is the instance-wide position that Details.sequence reports;
-- created_at is the transaction time, so all events of one change share one timestamp.
CREATE TABLE events (
  sequence       bigserial   PRIMARY KEY,
  aggregate_type text        NOT NULL,
  aggregate_id   text        NOT NULL,
  event_type     text        NOT NULL,
  payload        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  resource_owner text        NOT NULL,
  creator        text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_aggregate_idx ON events (aggregate_type, aggregate_id, sequence);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the event log is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_append_only();

CREATE TABLE orgs (
  id             text        PRIMARY KEY,
  name           text        NOT NULL,
  primary_domain text        NOT NULL,
  state          text        NOT NULL DEFAULT 'active' CONSTRAINT orgs_state_check CHECK (state IN ('active', 'inactive')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  changed_at     timestamptz NOT NULL DEFAULT now(),
  sequence       bigint      NOT NULL
);
CREATE UNIQUE INDEX orgs_name_unique ON orgs (lower(name));

CREATE TABLE org_domains (
  domain      text        NOT NULL,
  org_id      text        NOT NULL CONSTRAINT org_domains_org_fk REFERENCES orgs (id) ON DELETE CASCADE,
  is_primary  boolean     NOT NULL DEFAULT false,
  is_verified boolean     NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX org_domains_domain_unique ON org_domains (lower(domain));
CREATE INDEX org_domains_org_idx ON org_domains (org_id);

CREATE TABLE users (
  id                 text        PRIMARY KEY,
  org_id             text        NOT NULL CONSTRAINT users_org_fk REFERENCES orgs (id),
  type               text        NOT NULL CONSTRAINT users_type_check CHECK (type IN ('human', 'machine')),
  user_name          text        NOT NULL,
  state              text        NOT NULL DEFAULT 'active' CONSTRAINT users_state_check CHECK (state IN ('active', 'inactive')),
  -- human profile
  first_name         text,
  last_name          text,
  nick_name          text,
  display_name       text,
  preferred_language text,
  gender             text        CONSTRAINT users_gender_check CHECK (gender IN ('GENDER_UNSPECIFIED', 'GENDER_FEMALE', 'GENDER_MALE', 'GENDER_DIVERSE')),
  email              text,
  email_verified     boolean     NOT NULL DEFAULT false,
  phone              text,
  phone_verified     boolean     NOT NULL DEFAULT false,
  password_hash      text,
  -- machine
  machine_name        text,
  machine_description text,
  access_token_type   text       NOT NULL DEFAULT 'opaque' CONSTRAINT users_access_token_type_check CHECK (access_token_type IN ('opaque', 'jwt')),
  secret_hash         text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  changed_at         timestamptz NOT NULL DEFAULT now(),
  sequence           bigint      NOT NULL,
  CONSTRAINT users_human_profile CHECK (type <> 'human' OR (first_name IS NOT NULL AND last_name IS NOT NULL AND display_name IS NOT NULL AND email IS NOT NULL)),
  CONSTRAINT users_machine_name CHECK (type <> 'machine' OR machine_name IS NOT NULL)
);
-- User names are unique per instance, case-insensitively (login names are typed by people).
CREATE UNIQUE INDEX users_user_name_unique ON users (lower(user_name));
CREATE INDEX users_org_idx ON users (org_id);

-- Public keys of machine users for the JWT-profile grant (compat.md §6). Private keys are never stored.
CREATE TABLE machine_keys (
  id          text        PRIMARY KEY,
  user_id     text        NOT NULL CONSTRAINT machine_keys_user_fk REFERENCES users (id) ON DELETE CASCADE,
  public_jwk  jsonb       NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX machine_keys_user_idx ON machine_keys (user_id);

-- Roles held on the instance (resource_id = instance id) or on an organization.
CREATE TABLE memberships (
  user_id       text        NOT NULL CONSTRAINT memberships_user_fk REFERENCES users (id) ON DELETE CASCADE,
  resource_type text        NOT NULL CONSTRAINT memberships_resource_type_check CHECK (resource_type IN ('instance', 'org')),
  resource_id   text        NOT NULL,
  roles         text[]      NOT NULL CONSTRAINT memberships_roles_check CHECK (cardinality(roles) > 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT memberships_pkey PRIMARY KEY (user_id, resource_type, resource_id)
);
CREATE INDEX memberships_resource_idx ON memberships (resource_type, resource_id);
