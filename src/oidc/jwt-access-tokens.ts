// JWT access tokens. oidc-provider's own JWT format is not persisted, so such tokens could not be introspected, revoked
// or used at userinfo. Instead every access token is stored as an opaque token, and for apps and machine users with
// access token type JWT the value handed out is a signed JWT whose jti is the storage id. The adapter accepts such a
// row only through a verified JWT, never by its bare jti.
import { createPrivateKey, sign as signCallback, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { createLocalJWKSet, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type Provider from 'oidc-provider';
import type { KeySet } from './keys.ts';
import { SIGNING_ALG } from './keys.ts';
import { tokenAudience, type AudienceClient } from './audience.ts';
import type { TokenReference } from './access-tokens.ts';
import type { IssuedClaims } from './token-claims.ts';

/** Marks a JWT that the edge re-encoded, because oidc-provider refuses JWT-looking values at introspect/revoke. */
export const EDGE_PREFIX = 'jwt~';

const looksLikeJwt = (value: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);

export function encodeForEdge(value: string): string {
  return looksLikeJwt(value) ? EDGE_PREFIX + Buffer.from(value).toString('base64url') : value;
}

// RS256 signatures in the thread pool: an RSA-2048 signature costs about a millisecond of CPU, which would otherwise
// stall every other request on the event loop.
const rsaSign = promisify(signCallback);
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export class JwtAccessTokens {
  readonly #issuer: string;
  readonly #keys: () => KeySet;
  readonly #managementAudience: string;
  #cache: { fingerprint: string; verify: JWTVerifyGetKey; signingKey: KeyObject } | undefined;

  constructor(issuer: string, keys: () => KeySet, managementAudience: string) {
    this.#issuer = issuer;
    this.#keys = keys;
    this.#managementAudience = managementAudience;
  }

  #current() {
    const keys = this.#keys();
    if (this.#cache?.fingerprint !== keys.fingerprint) {
      this.#cache = {
        fingerprint: keys.fingerprint,
        verify: createLocalJWKSet({ keys: [...keys.publicJwks] }),
        signingKey: createPrivateKey({ key: keys.privateJwks[0]! as JWK & { kty: string }, format: 'jwk' }),
      };
    }
    return { ...this.#cache, kid: keys.signingKid };
  }

  /** Storage id of a presented access token; JWTs are verified against the published keys first. */
  async resolve(value: string): Promise<TokenReference | undefined> {
    let token = value;
    if (value.startsWith(EDGE_PREFIX)) token = Buffer.from(value.slice(EDGE_PREFIX.length), 'base64url').toString();
    else if (!looksLikeJwt(value)) return { jti: value, jwt: false };
    try {
      const { payload } = await jwtVerify(token, this.#current().verify, {
        issuer: this.#issuer,
        typ: 'at+jwt',
        algorithms: [SIGNING_ALG],
      });
      return typeof payload.jti === 'string' ? { jti: payload.jti, jwt: true } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Signs claims with the current signing key (RS256, with its kid): JWT access tokens and Gatehouse's own ID
   *  tokens. */
  async sign(claims: JWTPayload, typ?: string): Promise<string> {
    const { signingKey, kid } = this.#current();
    const input = `${base64url({ alg: SIGNING_ALG, kid, ...(typ ? { typ } : {}) })}.${base64url(claims)}`;
    const signature = await rsaSign('sha256', Buffer.from(input), signingKey);
    return `${input}.${signature.toString('base64url')}`;
  }

  /** The JWT handed out for an access token of a client with access token type JWT (RFC 9068 claims). */
  accessTokenJwt(
    token: { jti: string; iat: number; exp: number; accountId?: string; clientId: string; scope?: string },
    client: AudienceClient,
    extra: Record<string, unknown> = {},
  ): Promise<string> {
    return this.sign(
      {
        ...extra,
        iss: this.#issuer,
        sub: token.accountId ?? token.clientId,
        client_id: token.clientId,
        scope: token.scope,
        aud: tokenAudience(client, new Set(String(token.scope ?? '').split(' ')), this.#managementAudience),
        jti: token.jti,
        iat: token.iat,
        nbf: token.iat,
        exp: token.exp,
      },
      'at+jwt',
    );
  }

  /** Makes the provider hand out JWTs for clients whose access token type is JWT (see the file comment), with the role
   *  and org claims (accessTokenRoleAssertion) from `claims`. */
  install(provider: Provider, claims: IssuedClaims): void {
    const tokens = this;
    // getValueAndPayload is the library's internal hook (not in its types); `this` is an AccessToken.
    type Token = InstanceType<Provider['AccessToken']>;
    const proto = provider.AccessToken.prototype as unknown as {
      getValueAndPayload(this: Token): Promise<{ value: string; payload?: Record<string, unknown> }>;
    };
    const original = proto.getValueAndPayload;
    proto.getValueAndPayload = async function getValueAndPayload(this: Token) {
      const result = await original.call(this);
      const client = this.client as (AudienceClient & { access_token_type?: string }) | undefined;
      if (client?.access_token_type !== 'jwt' || !result.payload) return result;
      result.payload.gatehouseJwt = true;
      const { iat, exp } = result.payload as { iat: number; exp: number };
      const scopes = new Set(String(this.scope ?? '').split(' '));
      const extra = this.accountId ? await claims(this.accountId, scopes, client as never, 'access_token') : {};
      const value = await tokens.accessTokenJwt(
        { jti: this.jti, iat, exp, accountId: this.accountId, clientId: this.clientId!, scope: this.scope },
        client,
        extra,
      );
      return { value, payload: result.payload };
    };
  }
}
