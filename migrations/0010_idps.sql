-- Identity provider configurations. AddJWTIDP creates them on the instance (compat.md §5: resourceOwner is the
-- instance ID); logging in with them comes later. Only the JWT kind exists so far, so its fields are columns.
CREATE TABLE idps (
  id            text        PRIMARY KEY,
  instance_id   text        NOT NULL,
  type          text        NOT NULL CONSTRAINT idps_type_check CHECK (type IN ('jwt')),
  state         text        NOT NULL DEFAULT 'active' CONSTRAINT idps_state_check CHECK (state IN ('active', 'inactive')),
  name          text        NOT NULL,
  styling_type  text        NOT NULL CONSTRAINT idps_styling_type_check CHECK (styling_type IN ('STYLING_TYPE_UNSPECIFIED', 'STYLING_TYPE_GOOGLE')),
  auto_register boolean     NOT NULL DEFAULT false,
  jwt_endpoint  text        NOT NULL,
  issuer        text        NOT NULL,
  keys_endpoint text        NOT NULL,
  header_name   text        NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  sequence      bigint      NOT NULL
);
