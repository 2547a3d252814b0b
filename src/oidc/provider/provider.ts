// The oidc-provider configuration in one object. Every non-default option says why. A key rotation builds a new
// Provider from the same factory (a running Provider cannot change its keys), so everything the provider needs is
// applied here, in createProvider.
import { decodeJwt } from 'jose';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import type { KeySet } from '../keys.ts';
import { CLAIMS } from '../accounts.ts';
import { cookieKeys } from './cookie-keys.ts';
import { CLIENT_EXTRA_PROPERTIES } from './clients.ts';
import { isDynamicScope, MANAGEMENT_API_SCOPE, SUPPORTED_SCOPES } from '../scopes.ts';
import type { ProviderPages } from '../pages.ts';
import {
  REFUSAL_DESCRIPTIONS,
  SIGN_IN_CHECKS_PARAM,
  type CheckedClient,
  type SignInRefusal,
} from '../sign-in-checks.ts';
import { CLIENT_ASSERTION_ALGS, REQUEST_OBJECT_ALGS, ROUTES } from '../protocol.ts';
import { refreshTokenTtl } from '../token-lifetimes.ts';
import { loginClaims } from '../login-claims.ts';

export const INTERACTION_PATH = '/ui/login';
/** The login session's cookie; its value is the session's id. */
export const SESSION_COOKIE = '_gh_session';

/** The longest a sign-in may take, and the lifetime of its interaction cookies. The stored interaction itself lives
 *  only GATEHOUSE_INTERACTION_TTL past its start or its user's last form post (adapter.ts). */
export const INTERACTION_MAX_AGE = 3600;

export interface ProviderParts {
  config: Config;
  secrets: SecretBox;
  Adapter: NonNullable<Configuration['adapter']>;
  findAccount: NonNullable<Configuration['findAccount']>;
  revocationAllowed: NonNullable<NonNullable<Configuration['features']>['revocation']>['allowedPolicy'];
  /** The login pages' look for the pages the provider renders itself (src/login/provider-pages.ts). */
  pages: ProviderPages;
  /** Whether the app may act with the user's permissions (the management API scope) without asking (src/consents/). */
  managementScopeAllowed(userId: string, clientId: string): Promise<boolean>;
  /** An org scope, projectRoleCheck or hasProjectCheck that refuses this user (sign-in-checks.ts). */
  signInRefusal(userId: string, client: CheckedClient, scopes: ReadonlySet<string>): Promise<SignInRefusal | undefined>;
}

export function createProvider(parts: ProviderParts, keys: KeySet): Provider {
  const { config, secrets } = parts;
  const ttl = config.ttl;
  const configuration: Configuration = {
    adapter: parts.Adapter,
    findAccount: parts.findAccount,
    jwks: { keys: keys.privateJwks.map((k) => ({ ...k })) as never },
    routes: ROUTES,
    claims: CLAIMS,
    scopes: SUPPORTED_SCOPES,
    // ZITADEL's response types; implicit is not a v9 default
    responseTypes: ['code', 'id_token', 'id_token token'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      clientAuthSigningAlgValues: CLIENT_ASSERTION_ALGS,
      requestObjectSigningAlgValues: REQUEST_OBJECT_ALGS,
    },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' }, // public clients (RFC 9700 §2.1.1)
    allowOmittingSingleRegisteredRedirectUri: false, // redirect_uri is required, as in ZITADEL
    conformIdTokenClaims: false, // per-app "user info inside ID token" is applied in accounts.ts instead
    rotateRefreshToken: true, // every refresh returns a new refresh token (RFC 9700 §4.14)
    extraClientMetadata: {
      properties: CLIENT_EXTRA_PROPERTIES,
      validator(_ctx, key, _value, metadata) {
        // client_credentials only with basic/post, as ZITADEL allows it
        if (
          key === 'gatehouse_kind' &&
          metadata.grant_types?.includes('client_credentials') &&
          !['client_secret_basic', 'client_secret_post'].includes(String(metadata.token_endpoint_auth_method))
        ) {
          throw new errors.InvalidClientMetadata(
            'client_credentials requires client_secret_basic or client_secret_post',
          );
        }
      },
    },
    extraParams: {
      // Runs after oidc-provider's scope checks: openid is required, and offline_access is kept without prompt=consent,
      // since Gatehouse's apps are first-party. At the authorization endpoint and when a request is pushed (the pushed
      // one is stored with the scope as it leaves here).
      async gatehouse_scope_policy(ctx) {
        if (ctx.oidc.route !== 'authorization' && ctx.oidc.route !== 'pushed_authorization_request') return;
        const { client } = ctx.oidc;
        const params = ctx.oidc.params!;
        const scope = String(params.scope ?? '').split(' ');
        if (!scope.includes('openid')) throw new errors.InvalidScope('openid scope is required', 'openid');
        const raw = sentScope(ctx).split(' ');
        if (
          raw.includes('offline_access') &&
          String(params.response_type).includes('code') &&
          client?.grantTypeAllowed('refresh_token') &&
          !scope.includes('offline_access')
        ) {
          params.scope = [...scope, 'offline_access'].join(' ');
        }
        // Whether the login pages must check who may sign in, noted where the client is at hand, so a sign-in to an app
        // without checks costs the login no query; a value the client sent is overwritten.
        const checked = client?.['project_role_check' as never] || client?.['has_project_check' as never];
        params[SIGN_IN_CHECKS_PARAM] = checked ? 'project' : undefined;
      },
      [SIGN_IN_CHECKS_PARAM]() {}, // set above
    },
    async loadExistingGrant(ctx) {
      // First-party apps: the user's login is their consent; the grant covers what the app asked for.
      const { oidc } = ctx;
      const accountId = oidc.session!.accountId!;
      const clientId = oidc.client!.clientId;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(clientId);
      let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (grant && grant.accountId !== accountId) grant = undefined;
      // A stored grant that already holds the request's scopes is not written again (its expiry is fixed at its first
      // save): a silent re-authentication writes only the session and the code.
      const stored = grant?.openid?.scope;
      grant ??= new oidc.provider.Grant({ accountId, clientId });
      const requested = String(oidc.params?.scope ?? '')
        .split(' ')
        .filter(Boolean);
      // Every authorization, also one that reuses a session without the login pages, is checked.
      const refusal = await parts.signInRefusal(accountId, oidc.client as CheckedClient, new Set(requested));
      if (refusal) throw new errors.AccessDenied(REFUSAL_DESCRIPTIONS[refusal]);
      // Except the management API scope, which acts with the user's permissions: an app of another organization than
      // the instance's own gets it only with the user's consent. Left out of the grant, it makes the consent prompt's
      // op_scopes_missing check ask on the consent page, or answer consent_required to prompt=none; a grant that holds
      // it from before loses it.
      const management =
        requested.includes(MANAGEMENT_API_SCOPE) || grant.getOIDCScope().split(' ').includes(MANAGEMENT_API_SCOPE);
      const withheld = management && !(await parts.managementScopeAllowed(accountId, clientId));
      const granted = withheld ? requested.filter((s) => s !== MANAGEMENT_API_SCOPE) : requested;
      if (withheld && grant.openid?.scope)
        grant.openid.scope = grant.openid.scope
          .split(' ')
          .filter((s) => s !== MANAGEMENT_API_SCOPE)
          .join(' ');
      if (granted.length) grant.addOIDCScope(granted.join(' '));
      if (stored === undefined || grant.openid?.scope !== stored) await grant.save();
      return grant;
    },
    // auth_time and amr of the user's login, which introspection reports for user sessions
    async extraTokenClaims(ctx) {
      const { entities } = ctx.oidc;
      const interactive = ctx.oidc.route === 'resume' || ctx.oidc.route === 'authorization';
      const source = (entities.AuthorizationCode ?? entities.RefreshToken ?? (interactive ? ctx.oidc.session : {})) as
        | { authTime?: number; amr?: string[] }
        | undefined;
      return source?.authTime || source?.amr ? loginClaims(source) : undefined;
    },
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: promptPolicy(parts.pages),
    },
    cookies: {
      // Signed with a key derived from the master key, so every instance verifies every other's cookies.
      keys: cookieKeys(secrets.hashSecret('cookie signing v1')),
      names: { session: SESSION_COOKIE, interaction: '_gh_interaction', resume: '_gh_resume' },
    },
    ttl: {
      AccessToken: ttl.accessToken,
      IdToken: ttl.idToken,
      AuthorizationCode: ttl.authorizationCode,
      Grant: ttl.refreshTokenAbsolute,
      // saved on every request that uses it: idle timeout, capped by the absolute timeout
      Session: (_ctx, session) => {
        // Without an account a session only carries an end_session confirmation, which any cookie-less request stores:
        // kept as briefly as a pending interaction.
        if (!session.accountId) return ttl.interaction;
        const now = Math.floor(Date.now() / 1000);
        const absoluteEnd = (session.loginTs ?? now) + ttl.sessionAbsolute;
        return Math.max(1, Math.min(ttl.sessionIdle, absoluteEnd - now));
      },
      Interaction: INTERACTION_MAX_AGE,
      RefreshToken: (_ctx, token) => refreshTokenTtl(ttl, (token as { iiat?: number }).iiat ?? token.iat),
    },
    features: {
      devInteractions: { enabled: false },
      // replaced by machine-grants.ts: tokens belong to the machine user, as in ZITADEL
      clientCredentials: { enabled: false },
      // introspection and userinfo are served by Gatehouse itself (fast/); enabled here so discovery lists them
      introspection: { enabled: true },
      revocation: { enabled: true, allowedPolicy: parts.revocationAllowed },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: parts.pages.logoutSource as never,
        postLogoutSuccessSource: parts.pages.postLogoutSuccessSource as never,
      },
      // RFC 9126: a request_uri lives 60 seconds (the library's fixed lifetime, at most the pushed object's exp) and is
      // consumed by the authorization response it leads to; it is stored in oidc_payloads like the other models.
      // Required per client, not here (clients.ts): the library's instance-wide switch would require it of the
      // built-in clients too, whose pages redirect to the authorization endpoint themselves (account-client.ts).
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false },
      // RFC 9101: `request` by value, at the authorization endpoint and inside a push, signed with a key the app
      // registered (REQUEST_OBJECT_ALGS). A request_uri that is not a pushed request's is request_uri_not_supported:
      // the library (v9) never fetches one, so no URL a client names is ever requested.
      requestObjects: { enabled: true, requireSignedRequestObject: false },
      dPoP: { enabled: false },
      resourceIndicators: { enabled: false },
    },
    discovery: {
      prompt_values_supported: ['none', 'login', 'consent', 'select_account', 'create'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
      revocation_endpoint_auth_methods_supported: [
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      ui_locales_supported: [...parts.pages.locales], // the login pages' languages
      // GATEHOUSE_REQUIRE_PAR, which clients.ts applies to every app (RFC 9126 §5)
      ...(config.requirePar ? { require_pushed_authorization_requests: true } : {}),
    },
    renderError: parts.pages.renderError as never,
    // Browser apps call the token, revocation and userinfo endpoints cross-origin: allowed from the origins of
    // their registered redirect URIs only.
    clientBasedCORS(ctx, origin, client) {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return client.redirectUris!.some((uri) => URL.parse(uri)?.origin === origin);
    },
  };
  const provider = new Provider(config.issuer, configuration);
  // URLs come from the issuer, never from the client's headers: the edge sets Host and X-Forwarded-Proto from it.
  provider.proxy = true;
  keepProjectAudienceScopes(provider);
  return provider;
}

/** The scope the client sent, before the library's checks: in its request object (by value or pushed, RFC 9101 §4 and
 *  RFC 9126 §2.1; verified by then) or as a parameter. */
function sentScope(ctx: KoaContextWithOIDC): string {
  const source = (ctx.method === 'POST' ? ctx.oidc.body : ctx.query) as Record<string, unknown> | undefined;
  const pushed = (ctx.oidc.entities as { PushedAuthorizationRequest?: { request: string } }).PushedAuthorizationRequest;
  const request = pushed?.request ?? source?.request;
  return String((typeof request === 'string' ? decodeJwt(request) : source)?.scope ?? '');
}

/**
 * oidc-provider keeps only its configured (static) scopes of a request; urn:zitadel:iam:org:project:id:{id}:aud, the
 * role and the org scopes are dynamic, so the request's OIDC scopes are widened by those it names.
 */
function keepProjectAudienceScopes(provider: Provider): void {
  const proto = provider.OIDCContext.prototype as object;
  const original = Object.getOwnPropertyDescriptor(proto, 'requestParamOIDCScopes')!.get!;
  Object.defineProperty(proto, 'requestParamOIDCScopes', {
    configurable: true,
    get(this: { params?: { scope?: unknown } }) {
      const scopes = original.call(this) as Set<string>;
      for (const scope of String(this.params?.scope ?? '').split(' ')) if (isDynamicScope(scope)) scopes.add(scope);
      return scopes;
    },
  });
}

/** The base login/consent prompts plus requestable select_account and create, which the library lacks. */
function promptPolicy(pages: ProviderPages) {
  const policy = interactionPolicy.base();
  // first-party native apps need no consent screen either (loadExistingGrant grants what they ask for)
  policy.get('consent')!.checks.remove('native_client_prompt');
  policy.add(new interactionPolicy.Prompt({ name: 'create', requestable: true }), 0);
  policy.add(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }, severalAccounts(pages)), 1);
  return policy;
}

/** ZITADEL's rule "no prompt: user chooses a session if more than one exists". A plain request (no prompt, no hint) on
 *  a browser that has signed in with several accounts shows the account chooser, even with a session; the accounts are
 *  the login pages' list for this browser (src/login/known-accounts.ts). */
function severalAccounts(pages: ProviderPages) {
  return new interactionPolicy.Check(
    'several_accounts',
    'several accounts are signed in on this browser',
    'account_selection_required',
    (ctx) => {
      const { oidc } = ctx;
      if (
        oidc.prompts.size ||
        oidc.params?.login_hint ||
        oidc.params?.id_token_hint ||
        !oidc.session?.accountId ||
        oidc.result?.select_account
      )
        return false;
      return pages.knownAccounts(ctx.cookies) >= 2;
    },
  );
}
