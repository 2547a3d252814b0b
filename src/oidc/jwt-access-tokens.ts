// JWT access tokens (issue 3 §5, oidc-provider-findings §8). oidc-provider's own JWT format is not persisted, so
// such tokens could not be introspected, revoked or used at userinfo. Instead every access token is stored as an
// opaque token, and for apps and machine users with access token type JWT the value handed out is a signed JWT
// whose jti is the storage id. The adapter accepts such a row only through a verified JWT, never by its bare jti.
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT, type JWTVerifyGetKey, type CryptoKey } from 'jose';
import type Provider from 'oidc-provider';
import type { KeySet } from './keys.ts';
import { SIGNING_ALG } from './keys.ts';
import { tokenAudience, type AudienceClient } from './audience.ts';

/** Marks a JWT that the edge re-encoded, because oidc-provider refuses JWT-looking values at introspect/revoke. */
export const EDGE_PREFIX = 'jwt~';

const looksLikeJwt = (value: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value);

export function encodeForEdge(value: string): string {
  return looksLikeJwt(value) ? EDGE_PREFIX + Buffer.from(value).toString('base64url') : value;
}

export class JwtAccessTokens {
  readonly #issuer: string;
  readonly #keys: () => KeySet;
  readonly #managementAudience: string;
  #cache: { fingerprint: string; verify: JWTVerifyGetKey; sign: Promise<CryptoKey | Uint8Array> } | undefined;

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
        sign: importJWK(keys.privateJwks[0]!, SIGNING_ALG),
      };
    }
    return { ...this.#cache, kid: keys.signingKid };
  }

  /** Storage id of a presented access token; JWTs are verified against the published keys first. */
  async resolve(value: string): Promise<{ id: string; jwt: boolean } | undefined> {
    let token = value;
    if (value.startsWith(EDGE_PREFIX)) token = Buffer.from(value.slice(EDGE_PREFIX.length), 'base64url').toString();
    else if (!looksLikeJwt(value)) return { id: value, jwt: false };
    try {
      const { payload } = await jwtVerify(token, this.#current().verify, { issuer: this.#issuer, typ: 'at+jwt', algorithms: [SIGNING_ALG] });
      return typeof payload.jti === 'string' ? { id: payload.jti, jwt: true } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Makes the provider hand out JWTs for clients whose access token type is JWT (see the file comment). */
  install(provider: Provider): void {
    const tokens = this;
    const proto = provider.AccessToken.prototype as unknown as { getValueAndPayload(): Promise<{ value: string; payload?: Record<string, unknown> }> } & Record<string, any>;
    const original = proto.getValueAndPayload;
    proto.getValueAndPayload = async function getValueAndPayload(this: Record<string, any>) {
      const result = await original.call(this);
      const client = this.client as (AudienceClient & { access_token_type?: string }) | undefined;
      if (client?.access_token_type !== 'jwt' || !result.payload) return result;
      result.payload.gatehouseJwt = true;
      const { sign, kid } = tokens.#current();
      const value = await new SignJWT({
        client_id: this.clientId,
        scope: this.scope,
        aud: tokenAudience(client, new Set(String(this.scope ?? '').split(' ')), tokens.#managementAudience),
      })
        .setProtectedHeader({ alg: SIGNING_ALG, typ: 'at+jwt', kid })
        .setIssuer(tokens.#issuer)
        .setSubject(String(this.accountId ?? this.clientId))
        .setJti(this.jti)
        .setIssuedAt(result.payload.iat as number)
        .setNotBefore(result.payload.iat as number)
        .setExpirationTime(result.payload.exp as number)
        .sign(await sign);
      return { value, payload: result.payload };
    };
  }
}
