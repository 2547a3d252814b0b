-- Issue 13 item 3: oidc_payloads no longer stores the values its ids hash (src/oidc/adapter.ts storedPayload). Rows
-- written before keep working either way (the adapter puts the id back from the value presented); this takes the
-- values out of them now rather than when they expire (refresh tokens live up to 90 days). Replay markers keep the
-- jti of the assertion they mark, which is not their id.
UPDATE oidc_payloads
SET payload = CASE
  WHEN model = 'Interaction' AND payload ? 'returnTo'
    THEN jsonb_set(payload - 'jti', '{returnTo}', to_jsonb(replace(payload->>'returnTo', payload->>'jti', '{id}'))) #- '{session,cookie}'
  ELSE payload - 'jti'
END
WHERE model <> 'ReplayDetection' AND payload ? 'jti';
