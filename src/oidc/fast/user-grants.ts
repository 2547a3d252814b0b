// The token endpoint's fast path for the grants users' apps make all day: the authorization code exchange and the
// refresh token grant with rotation, with oidc-provider's rules (actions/grants/refresh_token.js,
// authorization_code.js, helpers/grant_common.js, grant_source.js, pkce.js) in two statements: one reads the code or
// refresh token with its grant, the client's app and whether the user is active; one consumes the code or token and
// writes the new tokens, atomically and only while the grant lives (queries.ts REDEEM_SQL). Follows oidc-provider 9.x
// (../protocol.ts OIDC_PROVIDER_MAJOR): its grant code, its payloads and its token response.
//
// Only the ordinary request is served here. Everything else returns undefined and goes to oidc-provider, which
// answers it from the same rows with the precise error and its side effects: an unknown, expired or consumed code
// or token (a replay past the reuse grace revokes the grant, provider/adapter.ts), a failed client authentication, a
// PKCE or redirect_uri mismatch, down-scoping (`scope`), other client authentication methods, and tokens that carry
// what this path does not build (claims requests, resource or proof-of-possession bindings, rejected scopes, apps
// with user info inside the ID token). Two requests that race for one code or token: one wins the consumption, the
// other goes to the provider, which refuses it as a reuse (within the grace without revoking anything).
import { loginClaims } from '../login-claims.ts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import { batchedStatement } from '../../platform/batch.ts';
import type { Db, Queryable } from '../../platform/db.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import type { JwtAccessTokens } from '../jwt-access-tokens.ts';
import type { TokenResponse } from '../machine-token-issuer.ts';
import { hashId } from '../payloads.ts';
import { GRANT_SOURCES_SQL, REDEEM_SQL, type GrantSourceRow, type RedeemRow } from '../queries.ts';
import { refreshTokenTtl } from '../token-lifetimes.ts';
import { presentedClient, type PresentedClient } from './client-auth.ts';
import { repeatedParam } from './oauth.ts';
import type { FastTokenResult } from './token.ts';

export interface UserGrantDeps {
  db: Pick<Db, 'query' | 'queryPlanned'>;
  secrets: SecretBox;
  issuer: string;
  ttl: Config['ttl'];
  signer: JwtAccessTokens;
}

/** The grants served here: the stored model of their source, its parameter, and the parameters they take. */
const GRANTS = {
  authorization_code: {
    model: 'AuthorizationCode',
    param: 'code',
    params: new Set(['grant_type', 'code', 'redirect_uri', 'code_verifier', 'client_id', 'client_secret']),
  },
  refresh_token: {
    model: 'RefreshToken',
    param: 'refresh_token',
    params: new Set(['grant_type', 'refresh_token', 'client_id', 'client_secret']),
  },
} as const;
type GrantType = keyof typeof GRANTS;

/** Source fields that bind or shape tokens beyond what this path builds: such sources go to the provider. */
const UNUSUAL_FIELDS = ['claims', 'resource', 'rar', 'x5t#S256', 'jkt', 'dpopJkt', 'attestationJkt'];

/** The fields of oidc-provider's AuthorizationCode and RefreshToken payloads this path reads. */
interface GrantSource {
  accountId: string;
  clientId: string;
  grantId: string;
  scope: string;
  acr?: string;
  amr?: string[];
  authTime?: number;
  expiresWithSession?: boolean;
  gty?: string;
  iat?: number;
  iiat?: number;
  nonce?: string;
  rotations?: number;
  sessionUid?: string;
  sid?: string;
  redirectUri?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

// RFC 7636 §4.1 (oidc-provider's checkFormat)
const CODE_VERIFIER = /^[\w.~-]{43,128}$/;

export function userGrantFastPath(deps: UserGrantDeps) {
  const lookup = batchedStatement<[string, string, string], GrantSourceRow>(deps.db, GRANT_SOURCES_SQL);
  // The redeem is planned for its values (Db.queryPlanned): a plan kept from a small table joins the sources to
  // every row of oidc_payloads, or to every Grant (test/oidc/grant-queries.test.ts).
  const planned: Queryable = { query: (text, params) => deps.db.queryPlanned(text, params ?? []) };
  const redeem = batchedStatement<RedeemRow, { i: string }>(planned, REDEEM_SQL);

  return async function serve(form: URLSearchParams, authorization: string | undefined): Promise<FastTokenResult> {
    const grantType = form.get('grant_type');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') return undefined;
    const grant = GRANTS[grantType];
    const value = form.get(grant.param);
    if (!value || repeatedParam(form) !== undefined || [...form.keys()].some((k) => !grant.params.has(k)))
      return undefined;
    let client: PresentedClient;
    try {
      client = presentedClient(form, authorization);
    } catch {
      return undefined;
    }
    const row = await lookup([grant.model, hashId(value), client.clientId]);
    const source = row && usableSource(row, grantType, client, form, deps.secrets);
    if (!source) return undefined;
    const issued = issue(deps, row!, grantType, source);
    // the signatures (thread pool) run while the statement does; nothing is answered unless it redeemed
    const [redeemed, body] = await Promise.all([
      redeem([
        grant.model,
        hashId(value),
        row!.source_grant_id!,
        issued.refreshToken ? hashId(issued.refreshToken.value) : null,
        issued.refreshToken?.payload ?? null,
        issued.refreshToken?.ttl ?? null,
        hashId(issued.accessToken.value),
        issued.accessToken.payload,
        deps.ttl.accessToken,
      ]),
      respond(deps, row!, source, issued),
    ]);
    if (!redeemed) return undefined; // consumed meanwhile, or its grant revoked: the provider says which
    return { body, clientId: client.clientId };
  };
}

/** The source when the request is the ordinary one this path serves (file comment), else undefined. */
function usableSource(
  row: GrantSourceRow,
  grantType: GrantType,
  client: PresentedClient,
  form: URLSearchParams,
  secrets: SecretBox,
): GrantSource | undefined {
  const source = row.source_payload as GrantSource | null;
  const grant = row.grant_payload;
  if (!source || !row.source_usable || !grant || !row.user_active || !authenticated(row, client, secrets))
    return undefined;
  if (!row.app_grant_types?.includes(grantType) || row.app_userinfo_in_id_token) return undefined;
  if (UNUSUAL_FIELDS.some((field) => field in source) || grant.rejected !== undefined) return undefined;
  if (source.clientId !== client.clientId || grant.clientId !== client.clientId) return undefined;
  if (!source.accountId || grant.accountId !== source.accountId || !source.grantId || typeof source.scope !== 'string')
    return undefined;
  if (carriesZitadelClaims(row, source.scope)) return undefined;
  if (grantType === 'authorization_code') {
    if (form.get('redirect_uri') !== source.redirectUri) return undefined;
    if (!pkceHolds(form.get('code_verifier'), source)) return undefined;
  }
  return source;
}

/** Tokens whose claims this path does not build (token-claims.ts): roles, metadata, org claims and project audiences
 *  are asked for with `urn:zitadel:iam:` scopes, and roles may come with the app's role assertions; those go to
 *  oidc-provider. */
function carriesZitadelClaims(row: GrantSourceRow, scope: string): boolean {
  return row.app_role_assertion === true || scope.split(' ').some((s) => s.startsWith('urn:zitadel:iam:'));
}

/** The app's registered method: a secret (Basic or in the body: oidc-provider accepts either) or none at all. */
function authenticated(row: GrantSourceRow, client: PresentedClient, secrets: SecretBox): boolean {
  switch (row.app_auth_method) {
    case 'basic':
    case 'post':
      return (
        (client.method === 'basic' || client.method === 'post') &&
        row.app_secret_hash !== null &&
        secrets.verifySecret(client.secret, row.app_secret_hash)
      );
    case 'none':
      return client.method === 'none';
    default:
      return false;
  }
}

/** oidc-provider's checkPKCE: a challenge needs its S256 verifier, a verifier needs its challenge. */
function pkceHolds(verifier: string | null, source: GrantSource): boolean {
  if (!verifier && !source.codeChallenge) return true;
  if (!verifier || !source.codeChallenge || source.codeChallengeMethod !== 'S256' || !CODE_VERIFIER.test(verifier))
    return false;
  const expected = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const challenge = Buffer.from(source.codeChallenge);
  return expected.length === challenge.length && timingSafeEqual(expected, challenge);
}

interface Issued {
  accessToken: { value: string; payload: Record<string, unknown>; iat: number; scope: string };
  refreshToken?: { value: string; payload: Record<string, unknown>; ttl: number };
}

// 256 bits from the CSPRNG, as oidc-provider's own values: not guessable (RFC 6749 §10.10)
const newValue = () => randomBytes(32).toString('base64url');

/**
 * The rows oidc-provider would write: the rotated (or, for a code with offline_access, the first) refresh token,
 * and the access token, whose scope is the source's as far as the grant still holds it (Grant
 * getOIDCScopeFiltered). Stored as storedPayload stores them: without the value their id hashes.
 */
function issue(deps: UserGrantDeps, row: GrantSourceRow, grantType: GrantType, source: GrantSource): Issued {
  const iat = Math.floor(Date.now() / 1000);
  const scopes = new Set(source.scope.split(' '));
  const granted = (row.grant_payload!.openid?.scope ?? '').split(' ');
  const scope = granted.filter((s) => scopes.has(s)).join(' ');
  const gty =
    grantType === 'refresh_token' && source.gty && !source.gty.endsWith(grantType)
      ? `${source.gty} ${grantType}`
      : (source.gty ?? grantType);
  const common = {
    accountId: source.accountId,
    clientId: source.clientId,
    grantId: source.grantId,
    expiresWithSession: source.expiresWithSession,
    sessionUid: source.sessionUid,
    sid: source.sid,
  };
  let refreshToken: Issued['refreshToken'];
  if (
    grantType === 'refresh_token' ||
    (row.app_grant_types!.includes('refresh_token') && scopes.has('offline_access'))
  ) {
    const iiat = grantType === 'refresh_token' ? (source.iiat ?? source.iat) : iat;
    const ttl = refreshTokenTtl(deps.ttl, iiat);
    refreshToken = {
      value: newValue(),
      ttl,
      payload: {
        ...common,
        kind: 'RefreshToken',
        iat,
        exp: iat + ttl,
        iiat,
        gty,
        scope: source.scope,
        acr: source.acr,
        amr: source.amr,
        authTime: source.authTime,
        nonce: source.nonce,
        rotations: grantType === 'refresh_token' ? (source.rotations ?? 0) + 1 : 0,
      },
    };
  }
  const accessToken = {
    value: newValue(),
    iat,
    scope,
    payload: {
      ...common,
      kind: 'AccessToken',
      iat,
      exp: iat + deps.ttl.accessToken,
      gty,
      scope,
      // provider.ts extraTokenClaims: the login's auth_time and amr, which introspection reports
      ...(source.authTime || source.amr ? { extra: loginClaims(source) } : {}),
      ...(row.app_access_token_type === 'jwt' ? { gatehouseJwt: true } : {}),
    },
  };
  return { accessToken, refreshToken };
}

/** The token response as oidc-provider builds it; the ID token as its issueIdToken does for an app without user
 *  info inside the ID token (accounts.ts: next to an access token it carries sub only). */
async function respond(
  deps: UserGrantDeps,
  row: GrantSourceRow,
  source: GrantSource,
  { accessToken, refreshToken }: Issued,
): Promise<TokenResponse & { refresh_token?: string }> {
  const { iat, scope } = accessToken;
  const { clientId } = source;
  const [accessTokenValue, idToken] = await Promise.all([
    row.app_access_token_type === 'jwt'
      ? deps.signer.accessTokenJwt(
          {
            jti: accessToken.value,
            iat,
            exp: iat + deps.ttl.accessToken,
            accountId: source.accountId,
            clientId,
            scope,
          },
          { clientId, project_id: row.app_project_id ?? undefined },
        )
      : accessToken.value,
    source.scope.split(' ').includes('openid')
      ? deps.signer.sign({
          sub: source.accountId,
          nonce: source.nonce,
          sid: source.sid,
          amr: source.amr, // what the login used, as oidc-provider's own ID tokens carry it
          aud: clientId,
          exp: iat + deps.ttl.idToken,
          iat,
          iss: deps.issuer,
        })
      : undefined,
  ]);
  return {
    access_token: accessTokenValue,
    expires_in: deps.ttl.accessToken,
    ...(idToken ? { id_token: idToken } : {}),
    ...(refreshToken ? { refresh_token: refreshToken.value } : {}),
    scope,
    token_type: 'Bearer',
  };
}
