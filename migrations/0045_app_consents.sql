-- A user's consent that an app of another organization than the instance's own may act with the user's
-- permissions (issue 13 §1: the management API scope). Asked once per user, app and scope on the consent page and
-- kept here, so it outlives the login session and every instance sees it.
CREATE TABLE app_consents (
  user_id    text        NOT NULL CONSTRAINT app_consents_user_fk REFERENCES users (id) ON DELETE CASCADE,
  app_id     text        NOT NULL CONSTRAINT app_consents_app_fk REFERENCES apps (id) ON DELETE CASCADE,
  scope      text        NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT app_consents_pkey PRIMARY KEY (user_id, app_id, scope)
);
CREATE INDEX app_consents_app_idx ON app_consents (app_id);
