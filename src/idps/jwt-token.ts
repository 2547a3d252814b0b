// Validating the JWT a JWT IdP's proxy forwards: the signature against the keys at keysEndpoint, cached per IdP and
// fetched again once when a token names a key the cache lacks (key rotation needs no restart); iss equal to the
// configured issuer, exp in the future, nbf and iat not in the future, asymmetric algorithms only, sub present.
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { safeFetchText, type SafeFetchOptions } from '../platform/safe-fetch.ts';
import type { IdpRow } from './queries.ts';

/** RSA, RSA-PSS, ECDSA and EdDSA: never HS* (the "key" would be public) nor none. */
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const CLOCK_TOLERANCE_SECONDS = 30;
const KEYS_MAX_BYTES = 64 * 1024;
const KEYS_TIMEOUT_MS = 5_000;

/** Why a token was refused, for the log and the error shown (never the token itself). */
export class TokenRefused extends Error {
  override name = 'TokenRefused';
  /** The keys could not be fetched: the IdP, not the token, is at fault. */
  readonly keysUnavailable: boolean;
  constructor(message: string, keysUnavailable = false) {
    super(message);
    this.keysUnavailable = keysUnavailable;
  }
}

export interface VerifiedIdentity {
  sub: string;
  claims: JWTPayload;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

/** What the key cache needs of an IdP: its configuration's version is its sequence, which every change writes. */
export type KeySource = Pick<IdpRow, 'id' | 'sequence' | 'issuer' | 'keys_endpoint'>;

/** The keys of each IdP, as fetched for one version of its configuration; one cache per process. A version the
 *  cache has not seen (UpdateIDPJWTConfig, on any process) is fetched anew, so keys of a former keysEndpoint are
 *  never used again; a new IdP row never meets keys cached for an old one at the same URL. */
export class IdpKeyCache {
  readonly #sets = new Map<string, { sequence: string; keys: KeySet }>();
  readonly #fetch: SafeFetchOptions;

  constructor(allowPrivateFetch: boolean) {
    this.#fetch = { allowPrivate: allowPrivateFetch, timeoutMs: KEYS_TIMEOUT_MS, maxBytes: KEYS_MAX_BYTES };
  }

  async verify(idp: KeySource, token: string): Promise<VerifiedIdentity> {
    const entry = this.#sets.get(idp.id);
    const cached = entry?.sequence === idp.sequence ? entry.keys : undefined;
    try {
      return await this.#verifyWith(idp, token, cached ?? (await this.#load(idp)));
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (!cached) throw new TokenRefused('token refused: signed by an unknown key');
    }
    // A key the cached set lacks: the IdP may have rotated; fetched once more, then it is final.
    try {
      return await this.#verifyWith(idp, token, await this.#load(idp));
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) throw new TokenRefused('token refused: signed by an unknown key');
      throw error;
    }
  }

  async #load(idp: KeySource): Promise<KeySet> {
    let jwks: JSONWebKeySet;
    try {
      jwks = JSON.parse(await safeFetchText(idp.keys_endpoint, this.#fetch)) as JSONWebKeySet;
      if (!Array.isArray(jwks?.keys)) throw new Error('no keys array');
    } catch (error) {
      throw new TokenRefused(`keys endpoint unusable: ${(error as Error).message}`, true);
    }
    const keys = createLocalJWKSet(jwks);
    this.#sets.set(idp.id, { sequence: idp.sequence, keys });
    return keys;
  }

  async #verifyWith(idp: Pick<IdpRow, 'issuer'>, token: string, keys: KeySet): Promise<VerifiedIdentity> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: idp.issuer,
        algorithms: ASYMMETRIC_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['iss', 'exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) throw error;
      throw new TokenRefused(`token refused: ${(error as Error).message}`);
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat === 'number' && payload.iat > now + CLOCK_TOLERANCE_SECONDS)
      throw new TokenRefused('token refused: iat in the future');
    if (typeof payload.sub !== 'string' || !payload.sub) throw new TokenRefused('token refused: no sub');
    return { sub: payload.sub, claims: payload };
  }
}

/** The token from the configured header, with or without a `Bearer ` prefix (as ZITADEL reads it). */
export function tokenFromHeader(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const token = value.replace(/^Bearer\s+/i, '').trim();
  return token || undefined;
}
