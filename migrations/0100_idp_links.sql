-- Issue 15: external identities linked to users. One identity (IdP, its `sub`) belongs to at most one user; a user
-- has at most one identity per IdP (as in ZITADEL, where a second link of the same IdP is refused).
CREATE TABLE user_idp_links (
  idp_id           text        NOT NULL REFERENCES idps (id) ON DELETE CASCADE,
  external_user_id text        NOT NULL,
  user_id          text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  display_name     text        NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (idp_id, external_user_id),
  CONSTRAINT user_idp_links_user_unique UNIQUE (user_id, idp_id)
);
