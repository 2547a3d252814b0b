// The row format of oidc_payloads, shared by oidc-provider's adapter (adapter.ts) and the fast path that writes and
// reads the same rows (machine-token-issuer.ts, access-tokens.ts, fast/introspection.ts): ids are stored as SHA-256
// hashes and payloads without the values the ids hash, so the table never holds a usable token, code, session or
// interaction id.
import type { AdapterPayload } from 'oidc-provider';

export { hashId } from '../platform/storage-id.ts';

/**
 * A payload as stored: without the bearer values oidc-provider keeps in it. Every model's `jti` is its id, the value
 * presented (a token, a code, the session cookie, an interaction's URL and cookie); an Interaction also names its id in
 * `returnTo` (the resume URL) and its browser session's cookie value in `session.cookie`, which nothing reads. `find`
 * is always called with the id, so presentedPayload puts it back. Not bearer values, and kept: a grant id (a reference
 * between rows, never accepted from a client: the grant_id column joins on it), a session's `uid` (the sessionUid of
 * its tokens; the cookie carries the jti) and `sid` (printed in ID tokens). Rows of older versions still hold a jti,
 * equal to the id; migration 0046 removes them.
 */
export function storedPayload<P extends { jti?: string }>(model: string, id: string, payload: P): Omit<P, 'jti'> {
  const { jti: _id, ...stored } = payload;
  if (model !== 'Interaction') return stored;
  const interaction = stored as { returnTo?: string; session?: { cookie?: string } };
  if (interaction.returnTo) interaction.returnTo = interaction.returnTo.replaceAll(id, ID_PLACEHOLDER);
  if (interaction.session?.cookie) {
    const { cookie: _cookie, ...session } = interaction.session;
    interaction.session = session;
  }
  return stored;
}

// Stands for the interaction's id in its stored resume URL: an issuer URL (an origin) and a route cannot contain it.
const ID_PLACEHOLDER = '{id}';

export function presentedPayload(model: string, id: string, stored: AdapterPayload): AdapterPayload {
  const payload = { ...stored, jti: id };
  if (model === 'Interaction' && typeof payload.returnTo === 'string')
    payload.returnTo = payload.returnTo.replaceAll(ID_PLACEHOLDER, id);
  return payload;
}

/** The fields of oidc-provider's AccessToken payload that Gatehouse reads. */
export interface AccessTokenPayload {
  jti: string;
  iat: number;
  exp: number;
  accountId?: string;
  clientId: string;
  grantId?: string;
  scope?: string;
  expiresWithSession?: boolean;
  sessionUid?: string;
  gatehouseJwt?: boolean;
  /** Set on a machine user's personal access token (queries.ts accessTokenLookup), which is no oidc-provider row. */
  personalAccessTokenId?: string;
  extra?: Record<string, unknown>;
}
