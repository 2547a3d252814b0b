-- Personal access tokens of machine users (ZITADEL's AddPersonalAccessToken): opaque bearer tokens that live until
-- their expiration date or their removal. Only the SHA-256 of a token is kept (its storage id, as for every access
-- token in oidc_payloads): the token has 256 random bits, so the hash is enough, and whoever reads this table cannot
-- use what they read. A user's removal removes its tokens.
CREATE TABLE personal_access_tokens (
  id          text        PRIMARY KEY,
  user_id     text        NOT NULL CONSTRAINT personal_access_tokens_user_fk REFERENCES users (id) ON DELETE CASCADE,
  token_hash  text        NOT NULL CONSTRAINT personal_access_tokens_token_hash_key UNIQUE,
  scope       text        NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  sequence    bigint      NOT NULL
);
CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id, created_at);
