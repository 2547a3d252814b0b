// Tokens of machine users (compat.md §6): client_credentials and the JWT-profile grant (RFC 7523) issue an access
// token that belongs to the machine user (sub = its user ID), usable at userinfo, introspection and the management
// API like any user token. One implementation serves both ways in: the token endpoint's fast path
// (endpoints/machine-token.ts) and oidc-provider's registered grant handlers (grants.ts), which answer whatever the
// fast path leaves to the provider (errors, unusual requests). The token row is oidc-provider's AccessToken format,
// so the provider's revocation endpoint and the adapter know it.
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { AdapterPayload } from 'oidc-provider';
import type { AccessTokenPayload } from './access-tokens.ts';
import type { JwtAccessTokens } from './jwt-access-tokens.ts';
import { CLOCK_TOLERANCE, type ClaimOnce } from './endpoints/client-auth.ts';

export interface MachineTokenDeps {
  issuer: string;
  ttl: { accessToken: number; idToken: number };
  /** Maximum age of an assertion's iat, seconds (compat.md §6: one hour). */
  assertionMaxAge: number;
  signer: JwtAccessTokens;
  saveAccessToken(jti: string, payload: AccessTokenPayload, expiresIn: number): Promise<void>;
  claimOnce: ClaimOnce;
}

export interface MachineTokenRequest {
  user: { id: string; access_token_type: 'opaque' | 'jwt' };
  /** The OAuth client the request authenticated as: the user name (client_credentials) or user ID (JWT profile). */
  clientId: string;
  /** Already filtered (scopes.ts filterMachineScopes). */
  scope: string;
  grantType: string;
  withIdToken: boolean;
}

export interface TokenResponse { access_token: string; expires_in: number; scope: string; token_type: 'Bearer'; id_token?: string }

export async function issueMachineToken(deps: MachineTokenDeps, request: MachineTokenRequest): Promise<TokenResponse> {
  const { user, clientId, scope } = request;
  const iat = Math.floor(Date.now() / 1000);
  const expiresIn = deps.ttl.accessToken;
  const jwt = user.access_token_type === 'jwt';
  // 256 bits from the CSPRNG, as oidc-provider's opaque tokens (security.md §7)
  const jti = randomBytes(32).toString('base64url');
  const payload: AccessTokenPayload & AdapterPayload = {
    kind: 'AccessToken', jti, iat, exp: iat + expiresIn, accountId: user.id, clientId, gty: request.grantType, scope,
    expiresWithSession: false, ...(jwt ? { gatehouseJwt: true } : {}),
  };
  await deps.saveAccessToken(jti, payload, expiresIn);
  const body: TokenResponse = {
    access_token: jwt ? await deps.signer.accessTokenJwt(payload, { clientId }) : jti,
    expires_in: expiresIn,
    scope,
    token_type: 'Bearer',
  };
  if (request.withIdToken && scope.split(' ').includes('openid')) {
    // next to an access token the ID token carries no scope claims (interface.md authorization_endpoint)
    body.id_token = await deps.signer.sign({ iss: deps.issuer, sub: user.id, aud: clientId, iat, exp: iat + deps.ttl.idToken });
  }
  return body;
}

export class AssertionRejected extends Error {}

/**
 * A JWT-profile assertion of a machine user (compat.md §6): RS256 with one of the user's keys, iss = sub = user ID,
 * aud the issuer (with or without a trailing slash, as ZITADEL's SDKs send it) or the token endpoint, unexpired, iat
 * at most assertionMaxAge old, and a jti not seen before. Throws AssertionRejected with the reason.
 */
export async function verifyServiceAssertion(deps: MachineTokenDeps, assertion: string, userId: string, jwks: JSONWebKeySet): Promise<void> {
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(jwks), {
      issuer: userId,
      subject: userId,
      audience: [deps.issuer, `${deps.issuer}/`, `${deps.issuer}/oauth/v2/token`],
      requiredClaims: ['exp', 'iat'],
      maxTokenAge: deps.assertionMaxAge,
      clockTolerance: CLOCK_TOLERANCE,
    }));
  } catch (error) {
    throw new AssertionRejected(`invalid assertion: ${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'}`);
  }
  if (payload.jti && !(await deps.claimOnce(userId, payload.jti, payload.exp! + CLOCK_TOLERANCE))) {
    throw new AssertionRejected('assertion has already been used');
  }
}
