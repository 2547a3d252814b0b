// The token endpoint's fast path for machine grants: a request that names an active machine user with valid credentials
// is answered here, usually with a single statement. The user's credentials come from a cache and the token is written
// only if they are still current (machine-token-issuer.ts GrantedOn), so a rotated secret, a removed key or a
// deactivated user takes effect on the very next request, on every instance. Anything else (errors, apps, unusual
// requests) returns undefined and goes to oidc-provider, whose grant handlers (provider/machine-grants.ts) issue the
// same tokens or the precise error.
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Db } from '../../platform/db.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import { findActiveMachine } from '../../users/machine-service.ts';
import { JWT_BEARER } from '../protocol.ts';
import { filterMachineScopes } from '../scopes.ts';
import {
  claimAssertion,
  CredentialsChanged,
  issueMachineToken,
  verifyServiceAssertion,
  type MachineTokenDeps,
  type MachineTokenRequest,
  type TokenResponse,
  type VerifiedAssertion,
} from '../machine-token-issuer.ts';
import { presentedClient, type PresentedClient } from './client-auth.ts';
import { repeatedParam } from './oauth.ts';

export interface MachineTokenFastPathDeps extends MachineTokenDeps {
  db: Db;
  secrets: SecretBox;
}

/**
 * RFC 7523 §2.1 without client authentication, as ZITADEL's service users call it: the client of a JWT-profile request
 * that authenticates no client is the machine user named by its assertion's issuer.
 */
export function jwtProfileClient(form: URLSearchParams, authorization: string | undefined): string | undefined {
  if (
    form.get('grant_type') !== JWT_BEARER ||
    authorization !== undefined ||
    form.has('client_id') ||
    form.has('client_assertion')
  )
    return undefined;
  try {
    return decodeJwt(form.get('assertion') ?? '').iss;
  } catch {
    return undefined; // a malformed assertion is answered by the provider
  }
}

/** The grant's response and the client it was issued to, or undefined to let the provider answer. */
export type FastTokenResult = { body: TokenResponse; clientId: string } | undefined;

/** jose's key set keeps the imported keys: built once per cached user, not per assertion. */
interface MachineCredentials {
  id: string;
  access_token_type: 'opaque' | 'jwt';
  secret_hash: string | null;
  keys: JWTVerifyGetKey;
}

/** Bounded: a flood of made-up client names must not grow memory; the oldest entries go first. */
const CACHE_LIMIT = 10_000;

export function machineTokenFastPath(deps: MachineTokenFastPathDeps) {
  const cache = new Map<string, MachineCredentials>();
  /** From the cache, or from the database when not cached or when `fresh` (the cached copy failed). */
  const credentials = async (
    by: { id: string } | { userName: string },
    fresh: boolean,
  ): Promise<MachineCredentials | undefined> => {
    const key = 'id' in by ? `id:${by.id}` : `name:${by.userName.toLowerCase()}`;
    if (!fresh && cache.has(key)) return cache.get(key);
    cache.delete(key);
    const user = await findActiveMachine(deps.db, by);
    if (!user) return undefined;
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    const found = {
      id: user.id,
      access_token_type: user.access_token_type,
      secret_hash: user.secret_hash,
      keys: createLocalJWKSet({ keys: user.jwks } as JSONWebKeySet),
    };
    cache.set(key, found);
    return found;
  };

  /**
   * Grants with cached credentials first; when they do not verify (undefined) or no longer hold, once more with fresh
   * ones. `null` from authorize ends the attempt (a replayed assertion).
   */
  const grant = async (
    by: { id: string } | { userName: string },
    authorize: (user: MachineCredentials) => Promise<Omit<MachineTokenRequest, 'user'> | undefined | null>,
  ): Promise<TokenResponse | undefined> => {
    for (const fresh of [false, true]) {
      const user = await credentials(by, fresh);
      if (!user) return undefined;
      const request = await authorize(user);
      if (request === null) return undefined;
      if (!request) continue;
      try {
        return await issueMachineToken(deps, { ...request, user });
      } catch (error) {
        if (!(error instanceof CredentialsChanged)) throw error;
      }
    }
    return undefined;
  };

  /** `jwtProfileIssuer`: jwtProfileClient(form, authorization), which the caller has already read. */
  return async function serve(
    form: URLSearchParams,
    authorization: string | undefined,
    jwtProfileIssuer: string | undefined,
  ): Promise<FastTokenResult> {
    if (repeatedParam(form) !== undefined) return undefined; // the provider's invalid_request
    const scope = form.get('scope');
    if (!scope) return undefined;
    switch (form.get('grant_type')) {
      case 'client_credentials':
        return clientCredentials(form, authorization, filterMachineScopes(scope));
      case JWT_BEARER:
        return jwtProfile(form, jwtProfileIssuer, filterMachineScopes(scope));
      default:
        return undefined;
    }
  };

  async function clientCredentials(
    form: URLSearchParams,
    authorization: string | undefined,
    scope: string,
  ): Promise<FastTokenResult> {
    let client: PresentedClient;
    try {
      client = presentedClient(form, authorization);
    } catch {
      return undefined;
    }
    if (client.method !== 'basic' && client.method !== 'post') return undefined;
    const { clientId, secret } = client;
    const body = await grant({ userName: clientId }, async (user) => {
      if (!user.secret_hash || !deps.secrets.verifySecret(secret, user.secret_hash)) return undefined;
      return {
        grantedOn: { secretHash: user.secret_hash },
        clientId,
        scope,
        grantType: 'client_credentials',
        withIdToken: false,
      };
    });
    return body && { body, clientId };
  }

  async function jwtProfile(form: URLSearchParams, iss: string | undefined, scope: string): Promise<FastTokenResult> {
    const assertion = form.get('assertion');
    if (!assertion || !iss || form.has('client_secret')) return undefined;
    let claimed = false;
    const body = await grant({ id: iss }, async (user) => {
      let verified: VerifiedAssertion;
      try {
        verified = await verifyServiceAssertion(deps, assertion, user.id, user.keys);
      } catch {
        return undefined;
      }
      // claimed once: a second round (fresh credentials) only checks the signature again
      if (!claimed && !(await claimAssertion(deps, user.id, verified))) return null;
      claimed = true;
      return {
        grantedOn: { keyId: verified.keyId },
        clientId: user.id,
        scope,
        grantType: JWT_BEARER,
        withIdToken: true,
      };
    });
    return body && { body, clientId: iss };
  }
}
