// Tokens of machine users, as ZITADEL issues them: client_credentials and the JWT-profile grant (RFC 7523) issue an
// access token that belongs to the machine user (sub = its user ID), usable at userinfo, introspection and the
// management API like any user token. One implementation serves both ways in: the token endpoint's fast path
// (fast/token.ts) and oidc-provider's registered grant handlers (provider/machine-grants.ts), which answer whatever the
// fast path leaves to the provider (errors, unusual requests). The token row is oidc-provider's AccessToken format, so
// the provider's revocation endpoint and the adapter know it.
import { randomBytes } from 'node:crypto';
import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../platform/db.ts';
import { batchedStatement } from '../platform/batch.ts';
import { hashId, storedPayload, type AccessTokenPayload } from './payloads.ts';
import { INSERT_TOKENS, type TokenRow } from './queries.ts';
import type { JwtAccessTokens } from './jwt-access-tokens.ts';
import { CLOCK_TOLERANCE, type ClaimOnce } from './assertions.ts';

export interface MachineTokenDeps {
  writeToken: TokenWriter;
  issuer: string;
  ttl: { accessToken: number; idToken: number };
  /** Maximum age of an assertion's iat, seconds (one hour by default). */
  assertionMaxAge: number;
  signer: JwtAccessTokens;
  claimOnce: ClaimOnce;
}

/**
 * The credentials a token was granted on. The token is written only while they are still current: the user active
 * with this access token type, and the secret (client_credentials) or the signing key (JWT profile) unchanged. A
 * token granted on stale credentials (a cached secret, a key removed meanwhile) is never written.
 */
export interface GrantedOn {
  secretHash?: string;
  keyId?: string;
}

export interface MachineTokenRequest {
  user: { id: string; access_token_type: 'opaque' | 'jwt' };
  grantedOn: GrantedOn;
  /** The OAuth client the request authenticated as: the user name (client_credentials) or user ID (JWT profile). */
  clientId: string;
  /** Already filtered (scopes.ts filterMachineScopes). */
  scope: string;
  grantType: string;
  withIdToken: boolean;
}

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  scope: string;
  token_type: 'Bearer';
  id_token?: string;
}

/** Writes a machine token row; false when its credentials no longer hold and nothing was written. */
export type TokenWriter = (row: TokenRow) => Promise<boolean>;

export function machineTokenWriter(db: Queryable): TokenWriter {
  const write = batchedStatement<TokenRow, { i: string }>(db, INSERT_TOKENS);
  return async (row) => (await write(row)) !== undefined;
}

/** The credentials changed between reading and writing: nothing was issued. */
export class CredentialsChanged extends Error {}

/** Issues the token, or throws CredentialsChanged when the credentials it was granted on no longer hold. */
export async function issueMachineToken(deps: MachineTokenDeps, request: MachineTokenRequest): Promise<TokenResponse> {
  const { user, clientId, scope } = request;
  const expiresIn = deps.ttl.accessToken;
  const jwt = user.access_token_type === 'jwt';
  const { payload, iat } = await writeMachineToken(deps.writeToken, request, expiresIn);
  const body: TokenResponse = {
    // the audience names the machine user by its ID, never by its user name (access-tokens.ts)
    access_token: jwt ? await deps.signer.accessTokenJwt(payload, { clientId: user.id }) : payload.jti,
    expires_in: expiresIn,
    scope,
    token_type: 'Bearer',
  };
  if (request.withIdToken && scope.split(' ').includes('openid')) {
    // next to an access token the ID token carries no scope claims, as in ZITADEL
    body.id_token = await deps.signer.sign({
      iss: deps.issuer,
      sub: user.id,
      aud: clientId,
      iat,
      exp: iat + deps.ttl.idToken,
    });
  }
  return body;
}

/**
 * Writes the row of a machine user's access token, valid for expiresIn seconds; throws CredentialsChanged when the
 * credentials it was granted on no longer hold. An opaque token is the payload's jti; the operator's token of the CLI
 * (`gatehouse admin token`) is one, written without a token request.
 */
export async function writeMachineToken(
  writeToken: TokenWriter,
  request: Omit<MachineTokenRequest, 'withIdToken'>,
  expiresIn: number,
): Promise<{ payload: AccessTokenPayload & AdapterPayload; iat: number }> {
  const { user } = request;
  const iat = Math.floor(Date.now() / 1000);
  // 256 bits from the CSPRNG, as oidc-provider's opaque tokens: not guessable (RFC 6749 §10.10)
  const jti = randomBytes(32).toString('base64url');
  const payload: AccessTokenPayload & AdapterPayload = {
    kind: 'AccessToken',
    jti,
    iat,
    exp: iat + expiresIn,
    accountId: user.id,
    clientId: request.clientId,
    gty: request.grantType,
    scope: request.scope,
    expiresWithSession: false,
    ...(user.access_token_type === 'jwt' ? { gatehouseJwt: true } : {}),
  };
  const written = await writeToken([
    hashId(jti),
    storedPayload('AccessToken', jti, payload),
    expiresIn,
    user.id,
    user.access_token_type,
    request.grantedOn.secretHash ?? null,
    request.grantedOn.keyId ?? null,
  ]);
  if (!written) throw new CredentialsChanged();
  return { payload, iat };
}

export class AssertionRejected extends Error {}

/**
 * A JWT-profile assertion of a machine user: RS256 with one of the user's keys, iss = sub = user ID, aud the issuer
 * (with or without a trailing slash, as ZITADEL's SDKs send it) or the token endpoint, unexpired, and iat at most
 * assertionMaxAge old. Throws AssertionRejected with the reason. Its jti is claimed separately.
 */
export async function verifyServiceAssertion(
  deps: MachineTokenDeps,
  assertion: string,
  userId: string,
  keys: JWTVerifyGetKey,
): Promise<VerifiedAssertion> {
  try {
    const { payload, protectedHeader } = await jwtVerify(assertion, keys, {
      issuer: userId,
      subject: userId,
      audience: [deps.issuer, `${deps.issuer}/`, `${deps.issuer}/oauth/v2/token`],
      requiredClaims: ['exp', 'iat'],
      maxTokenAge: deps.assertionMaxAge,
      clockTolerance: CLOCK_TOLERANCE,
    });
    return { keyId: protectedHeader.kid!, jti: payload.jti, exp: payload.exp! };
  } catch (error) {
    throw new AssertionRejected(`invalid assertion: ${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'}`);
  }
}

export interface VerifiedAssertion {
  keyId: string;
  jti?: string;
  exp: number;
}

/** An assertion with a jti is accepted once (RFC 7523 §3 item 7); false when it was used before. */
export async function claimAssertion(
  deps: MachineTokenDeps,
  userId: string,
  verified: VerifiedAssertion,
): Promise<boolean> {
  return !verified.jti || deps.claimOnce(userId, verified.jti, verified.exp + CLOCK_TOLERANCE);
}
