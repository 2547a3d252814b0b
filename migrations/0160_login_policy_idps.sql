-- Issue 15: the IdPs the instance's login policy offers (ZITADEL's AddIDPToLoginPolicy). The login page's "Continue
-- with" buttons and the scope urn:zitadel:iam:org:idp:id:{id} accept only the IdPs listed here (and active). The
-- policy's settings (allowExternalIdp and the rest) live apart from this list.
CREATE TABLE login_policy_idps (
  instance_id text        NOT NULL,
  idp_id      text        NOT NULL REFERENCES idps (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (instance_id, idp_id)
);

-- Before this list existed every active IdP was offered. Every IdP that exists now goes on the list, so nothing
-- changes for existing installs (an IdP inactive today is offered again once reactivated, as it was). IdPs added
-- from now on join the list only through AddIDPToLoginPolicy, as in ZITADEL.
INSERT INTO login_policy_idps (instance_id, idp_id, created_at) SELECT instance_id, id, created_at FROM idps;
