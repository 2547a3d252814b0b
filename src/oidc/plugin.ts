// Mounts oidc-provider in Fastify (issue 3 §1, oidc-provider-findings §3): explicit routes for exactly the
// interface's endpoints and the provider's sub-routes, each handed to the CURRENT provider untouched. The provider
// is rebuilt when the signing keys change (keys.ts), in this and every other process on the same database.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type Provider from 'oidc-provider';
import type { AppDeps } from '../app.ts';
import { findActiveUser } from '../users/lookup.ts';
import { createAdapterClass, sweepExpired } from './adapter.ts';
import { createFindAccount } from './accounts.ts';
import { findClientMetadata, JWT_BEARER } from './clients.ts';
import { registerMachineGrants } from './grants.ts';
import { encodeForEdge, JwtAccessTokens } from './jwt-access-tokens.ts';
import { loadKeySet, type KeySet } from './keys.ts';
import { patchClients } from './client-rules.ts';
import { createProvider, ROUTES } from './provider.ts';
import { DISCOVERY_PATH, renderDocuments, serveDocuments, type Documents } from './documents.ts';
import { providerPages } from '../login/provider-pages.ts';
import { sameOriginPostsOnly } from '../login/routes.ts';
import { createTokenPolicies } from './token-endpoints.ts';
import { observeProvider } from './observe.ts';
import { createClientRateLimit, type ClientRateLimit } from './client-rate-limit.ts';
import { tooManyRequests } from '../platform/rate-limit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OIDC provider's services for the other parts of the app (management API auth, login pages). */
    oidc: Oidc;
  }
}

export interface VerifiedAccessToken {
  tokenId: string;
  userId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  expiresAt: Date;
}

export interface Oidc {
  /** Checks an access token (opaque or JWT) as introspection does: exists, not expired, not revoked, user active. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined>;
  /** The current provider; it is replaced on key rotation, so call this per request. */
  provider(): Provider;
  close(): Promise<void>;
}

export async function registerOidc(app: FastifyInstance, deps: AppDeps): Promise<Oidc> {
  const { config, db, secrets, log } = deps;
  // The management API's audience entry: ZITADEL resolves its "zitadel" project alias to a project ID; the
  // instance ID plays that role here (compat.md §4).
  const managementAudience = deps.instance.id;
  const keyOptions = {
    activationDelay: config.keys.activationDelay,
    retainSeconds: Math.max(config.ttl.accessToken, config.ttl.idToken),
    rotationDays: config.keyRotationDays,
  };
  let keys = await loadKeySet(db, secrets, keyOptions);
  const jwtAccessTokens = new JwtAccessTokens(config.issuer, () => keys, managementAudience);
  const findAccount = createFindAccount(db);
  const pages = providerPages(deps);
  const policies = createTokenPolicies(db, managementAudience);
  const Adapter = createAdapterClass(db, {
    findClient: (id) => findClientMetadata(db, id),
    resolveAccessToken: (value) => jwtAccessTokens.resolve(value),
  }, { refreshReuseGrace: config.ttl.refreshTokenReuseGrace });

  const clientRateLimit = createClientRateLimit(config.rateLimit.perClient, new Set(config.rateLimit.exempt));
  const build = async (keySet: KeySet) => {
    const provider = createProvider({
      config, secrets, Adapter, findAccount,
      introspectionAllowed: policies.introspectionAllowed as never,
      revocationAllowed: policies.revocationAllowed as never,
      pages,
    }, keySet);
    registerMachineGrants(provider, config, findAccount);
    jwtAccessTokens.install(provider);
    patchClients(provider, secrets);
    provider.use(policies.middleware);
    provider.use(clientRateLimit.middleware);
    observeProvider(provider, deps.metrics, log);
    // iss in every authorization response, implicit ones included (security.md §5; the library skips it there)
    (provider.on as (event: string, listener: (ctx: unknown, out: Record<string, unknown>) => void) => void)('authorization.success', (_ctx, out) => { out.iss ??= config.issuer; });
    const callback = provider.callback();
    return { provider, callback, documents: await renderDocuments(callback, config.issuer) };
  };
  let current = await build(keys);

  const reloadKeys = async () => {
    const next = await loadKeySet(db, secrets, keyOptions);
    if (next.fingerprint === keys.fingerprint) return;
    keys = next;
    current = await build(next);
    log.info({ signingKid: next.signingKid, published: next.publicJwks.length }, 'signing keys changed; provider rebuilt');
  };
  const timers = [
    setInterval(() => { reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed')); }, config.keys.reloadIntervalMs),
    setInterval(() => {
      sweepExpired(db).then((removed) => deps.metrics.sweptRows.inc({ model: 'oidc' }, removed), (err) => log.warn({ err }, 'oidc sweep failed'));
    }, config.oidcSweepIntervalMs),
  ];
  timers.forEach((t) => t.unref());

  mountRoutes(app, () => current.callback, () => current.documents, config.issuer, sameOriginPostsOnly(deps), clientRateLimit);

  const oidc: Oidc = {
    provider: () => current.provider,
    async verifyAccessToken(token) {
      const provider = current.provider;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId) return undefined;
      // a revoked grant (refresh token revocation, code replay, logout) ends its tokens
      if (at.grantId) {
        const grant = await provider.Grant.find(at.grantId);
        if (!grant || grant.isExpired) return undefined;
      }
      if (!(await findActiveUser(db, at.accountId))) return undefined;
      return {
        tokenId: createHash('sha256').update(at.jti).digest('base64url'),
        userId: at.accountId,
        clientId: at.clientId!,
        scopes: new Set(String(at.scope ?? '').split(' ').filter(Boolean)),
        expiresAt: new Date(at.exp! * 1000),
      };
    },
    async close() {
      timers.forEach(clearInterval);
    },
  };
  app.decorate('oidc', oidc);
  app.addHook('onClose', async () => oidc.close());
  return oidc;
}

const END_SESSION_PARAMS = new Set(['id_token_hint', 'post_logout_redirect_uri', 'state', 'ui_locales', 'client_id', 'logout_hint']);

function mountRoutes(app: FastifyInstance, callback: () => ReturnType<Provider['callback']>, documents: () => Documents, issuer: string, formPostCheck: ReturnType<typeof sameOriginPostsOnly>, clientRateLimit: ClientRateLimit): void {
  const { host, protocol } = new URL(issuer);
  const hand = (request: FastifyRequest, reply: FastifyReply) => {
    // Endpoint URLs and cookie flags derive from the configured issuer, never from the client's headers
    // (security.md §10); the client address is the one Fastify resolved with its trusted proxies.
    const headers = request.raw.headers;
    headers.host = host;
    if (headers[':authority']) headers[':authority'] = host; // HTTP/2: Koa reads the authority before Host
    headers['x-forwarded-proto'] = protocol.slice(0, -1);
    headers['x-forwarded-for'] = request.ip;
    delete headers['x-forwarded-host'];
    reply.hijack();
    void callback()(request.raw, reply.raw);
  };

  app.register(async (scope) => {
    // Routes the provider reads itself: handed over before Fastify parses anything.
    const passthrough = (method: string | string[], url: string) => scope.route({
      method: method as never, url,
      onRequest: async (request, reply) => hand(request, reply),
      handler: async () => {},
    });
    serveDocuments(scope, documents);
    passthrough('OPTIONS', DISCOVERY_PATH);
    passthrough('GET', ROUTES.authorization);
    passthrough('GET', `${ROUTES.authorization}/:uid`);
    passthrough('OPTIONS', ROUTES.jwks);
    passthrough(['GET', 'POST', 'OPTIONS'], ROUTES.userinfo);
    passthrough('GET', ROUTES.end_session);
    scope.route({
      method: 'POST', url: `${ROUTES.end_session}/confirm`,
      onRequest: [formPostCheck, async (request, reply) => hand(request, reply)],
      handler: async () => {},
    });
    passthrough('GET', `${ROUTES.end_session}/success`);
    passthrough('OPTIONS', ROUTES.token);
    passthrough('OPTIONS', ROUTES.introspection);
    passthrough('OPTIONS', ROUTES.revocation);

    // Routes whose form body the edge adjusts first; the provider then reads the rewritten body.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 56 * 1024 }, (_req, body, done) => done(null, body));
    const rewriting = (url: string, rewrite: (form: URLSearchParams, request: FastifyRequest) => void, limitPerClient = false) => scope.post(url, async (request, reply) => {
      if (typeof request.body === 'string') {
        const form = new URLSearchParams(request.body);
        rewrite(form, request);
        if (limitPerClient) {
          const decision = clientRateLimit.check(form, request.headers.authorization, request.ip);
          if (!decision.allowed) return tooManyRequests(reply, decision);
        }
        const body = form.toString();
        (request.raw as unknown as { body: string }).body = body;
        // the provider only reads bodies it sees announced; HTTP/2 clients may send none (and the body changed)
        request.raw.headers['content-length'] = String(Buffer.byteLength(body));
      }
      hand(request, reply);
    });
    rewriting(ROUTES.token, (form, request) => {
      // JWT-profile requests carry no client identification (RFC 7523, compat.md §6): the client is the machine
      // user named by the assertion's issuer; the grant handler verifies the assertion itself.
      if (form.get('grant_type') !== JWT_BEARER || request.headers.authorization || form.has('client_id') || form.has('client_assertion')) return;
      try {
        const iss = decodeJwt(form.get('assertion') ?? '').iss;
        if (iss) form.set('client_id', iss);
      } catch { /* a malformed assertion is answered by the provider */ }
    }, true);
    const jwtToEdge = (form: URLSearchParams) => {
      const tokens = form.getAll('token');
      if (tokens.length !== 1) return;
      form.set('token', encodeForEdge(tokens[0]!));
    };
    rewriting(ROUTES.introspection, jwtToEdge, true);
    rewriting(ROUTES.revocation, jwtToEdge);

    // end_session by POST (compat.md §6). oidc-provider serves POST only with SameSite=None session cookies, which
    // would weaken every cookie; a 303 to the GET endpoint with the same parameters keeps them Lax.
    scope.post(ROUTES.end_session, async (request, reply) => {
      const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
      const query = new URLSearchParams([...form].filter(([key]) => END_SESSION_PARAMS.has(key)));
      return reply.redirect(`${issuer}${ROUTES.end_session}${query.size ? `?${query}` : ''}`, 303);
    });
  });
}
