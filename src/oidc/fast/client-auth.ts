// Client authentication for the endpoints Gatehouse serves itself, with oidc-provider's rules
// (lib/shared/client_auth.js, lib/shared/jwt_client_auth.js): one mechanism per request; Basic credentials
// form-urlencoded (RFC 6749 §2.3.1); private_key_jwt assertions (RFC 7523 §3) signed with a registered key, for this
// server, unexpired, used once. Follows oidc-provider 9.x (../protocol.ts OIDC_PROVIDER_MAJOR).
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { CLOCK_TOLERANCE, type ClaimOnce } from '../assertions.ts';
import { CLIENT_ASSERTION_ALGS } from '../protocol.ts';
import { invalidClient, invalidRequest } from './oauth.ts';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export type PresentedClient =
  | { clientId: string; method: 'basic' | 'post'; secret: string }
  | { clientId: string; method: 'private_key_jwt'; assertion: string }
  | { clientId: string; method: 'none' };

/** Which client a request names and how it authenticates; a malformed or ambiguous request is invalid_request. */
export function presentedClient(form: URLSearchParams, authorization: string | undefined): PresentedClient {
  const bodyId = form.get('client_id') ?? undefined;
  const assertion = form.get('client_assertion') ?? undefined;
  const bodySecret = form.get('client_secret') ?? undefined;
  if (authorization !== undefined) {
    if (assertion !== undefined || bodySecret !== undefined)
      throw invalidRequest('client authentication must only be provided using one mechanism');
    const [scheme, encoded, extra] = authorization.split(' ');
    if (scheme?.toLowerCase() !== 'basic' || !encoded || extra !== undefined)
      throw invalidRequest('invalid authorization header value format');
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    let clientId: string;
    let secret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon < 0 ? undefined : colon));
      secret = colon < 0 ? '' : decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      throw invalidRequest('client_id and client_secret in the authorization header are not properly encoded');
    }
    if (bodyId !== undefined && bodyId !== clientId)
      throw invalidRequest('mismatch in body and authorization client ids');
    if (!clientId) throw invalidRequest('no client authentication mechanism provided');
    if (!secret) throw invalidRequest('client_secret must be provided in the Authorization header');
    return { clientId, method: 'basic', secret };
  }
  if (assertion !== undefined) {
    if (bodySecret !== undefined)
      throw invalidRequest('client authentication must only be provided using one mechanism');
    let sub: string | undefined;
    try {
      sub = decodeJwt(assertion).sub;
    } catch {
      throw invalidRequest('invalid client_assertion format');
    }
    if (!sub) throw invalidClient('sub (JWT subject) must be provided in the client_assertion JWT');
    if (form.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE)
      throw invalidRequest(`client_assertion_type must have value ${CLIENT_ASSERTION_TYPE}`);
    if (bodyId !== undefined && bodyId !== sub)
      throw invalidRequest('subject of client_assertion must be the same as client_id provided in the body');
    return { clientId: sub, method: 'private_key_jwt', assertion };
  }
  if (!bodyId) throw invalidRequest('no client authentication mechanism provided');
  return bodySecret !== undefined
    ? { clientId: bodyId, method: 'post', secret: bodySecret }
    : { clientId: bodyId, method: 'none' };
}

/** The client a well-formed request names, authenticated or not yet (per-client rate limits); else undefined. */
export function presentedClientId(form: URLSearchParams, authorization: string | undefined): string | undefined {
  try {
    return presentedClient(form, authorization).clientId;
  } catch {
    return undefined; // malformed: the endpoint answers invalid_request before any client work
  }
}

/** Verifies a private_key_jwt client assertion against the client's registered keys. */
export async function verifyClientAssertion(
  assertion: string,
  clientId: string,
  jwks: JSONWebKeySet,
  audiences: ReadonlySet<string>,
  claimOnce: ClaimOnce,
): Promise<void> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(jwks), {
      issuer: clientId,
      algorithms: [...CLIENT_ASSERTION_ALGS],
      requiredClaims: ['exp', 'jti'],
      clockTolerance: CLOCK_TOLERANCE,
    }));
  } catch {
    throw invalidClient();
  }
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.some((a) => a !== undefined && audiences.has(a)))
    throw invalidClient('audience (aud) must equal the endpoint url, issuer identifier or token endpoint url');
  if (!(await claimOnce(clientId, payload.jti!, payload.exp! + CLOCK_TOLERANCE)))
    throw invalidClient('client assertion tokens must only be used once');
}
