-- Pushed authorization requests (RFC 9126 §5) required of one app: a Gatehouse setting of its own, outside ZITADEL's
-- app API (which has no such field), so ZITADEL's UpdateOIDCAppConfig never touches it. The console and the CLI set
-- it; GATEHOUSE_REQUIRE_PAR requires PAR of every app instead.
ALTER TABLE apps ADD COLUMN require_par boolean NOT NULL DEFAULT false;
