// Mounts oidc-provider in Fastify (issue 3 §1, oidc-provider-findings §3): explicit routes for exactly the
// interface's endpoints and the provider's sub-routes, each handed to the CURRENT provider untouched. The provider
// is rebuilt when the signing keys change (keys.ts), in this and every other process on the same database.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AppDeps } from '../app.ts';
import { AssertionReplayed, createAdapterClass, hashId, sweepExpired } from './adapter.ts';
import { createFindAccount } from './accounts.ts';
import { findClientMetadata } from './clients.ts';
import { activeAccessTokenFinder } from './access-tokens.ts';
import { machineTokenWriter, type MachineTokenDeps } from './machine-tokens.ts';
import { jwtProfileClient, machineTokenFastPath, type FastTokenResult } from './endpoints/machine-token.ts';
import { registerIntrospection } from './endpoints/introspection.ts';
import { registerUserinfo } from './endpoints/userinfo.ts';
import { acceptFormBodies, noStore } from './endpoints/oauth.ts';
import { allowOrigin } from './endpoints/cors.ts';
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
import { createClientRateLimit, tokenRequestClientKind, type ClientRateLimit } from './client-rate-limit.ts';
import { presentedClientId } from './endpoints/client-auth.ts';
import { tooManyRequests } from '../platform/rate-limit.ts';
import { scopeGrantedSilently } from '../consents/service.ts';
import { MANAGEMENT_API_SCOPE } from './scopes.ts';
import { refuseNulCharacters } from './endpoints/nul-guard.ts';
import { limitStoringRequests } from './endpoints/storing-limit.ts';
import { authorizationSizeCap } from './endpoints/authorization-size.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OIDC provider's services for the other parts of the app (management API auth, login pages). */
    oidc: Oidc;
  }
}

export interface VerifiedAccessToken {
  tokenId: string;
  userId: string;
  /** The user's organization. */
  orgId: string;
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
  const policies = createTokenPolicies();
  const Adapter = createAdapterClass(
    db,
    {
      findClient: (id) => findClientMetadata(db, id),
      resolveAccessToken: (value) => jwtAccessTokens.resolve(value),
    },
    { refreshReuseGrace: config.ttl.refreshTokenReuseGrace, interactionTtl: config.ttl.interaction },
  );
  const machineTokens: MachineTokenDeps = {
    writeToken: machineTokenWriter(db),
    issuer: config.issuer,
    ttl: { accessToken: config.ttl.accessToken, idToken: config.ttl.idToken },
    assertionMaxAge: config.assertionMaxAge,
    signer: jwtAccessTokens,
    // oidc-provider's ReplayDetection ids, so an assertion used on one path cannot be replayed on the other
    claimOnce: (issuer, jti, expiresAt) =>
      new Adapter('ReplayDetection')
        .upsert(hashId(`${issuer}${jti}`), { iss: issuer, jti } as never, expiresAt - Math.floor(Date.now() / 1000))
        .then(
          () => true,
          (error) => {
            if (error instanceof AssertionReplayed) return false;
            throw error;
          },
        ),
  };

  const clientRateLimit = createClientRateLimit(config.rateLimit.perClient, new Set(config.rateLimit.exempt));
  const build = async (keySet: KeySet) => {
    const provider = createProvider(
      {
        config,
        secrets,
        Adapter,
        findAccount,
        revocationAllowed: policies.revocationAllowed as never,
        pages,
        managementScopeAllowed: (userId, clientId) =>
          scopeGrantedSilently(db, deps.instance.default_org_id, { userId, clientId, scope: MANAGEMENT_API_SCOPE }),
      },
      keySet,
    );
    registerMachineGrants(provider, machineTokens);
    jwtAccessTokens.install(provider);
    patchClients(provider, secrets);
    provider.use(policies.middleware);
    provider.use(clientRateLimit.middleware);
    observeProvider(provider, deps.metrics, log);
    // iss in every authorization response, implicit ones included (security.md §5; the library skips it there)
    (provider.on as (event: string, listener: (ctx: unknown, out: Record<string, unknown>) => void) => void)(
      'authorization.success',
      (_ctx, out) => {
        out.iss ??= config.issuer;
      },
    );
    const callback = provider.callback();
    return { provider, callback, documents: await renderDocuments(callback, config.issuer) };
  };
  let current = await build(keys);

  const reloadKeys = async () => {
    const next = await loadKeySet(db, secrets, keyOptions);
    if (next.fingerprint === keys.fingerprint) return;
    keys = next;
    current = await build(next);
    log.info(
      { signingKid: next.signingKid, published: next.publicJwks.length },
      'signing keys changed; provider rebuilt',
    );
  };
  const timers = [
    setInterval(() => {
      reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed'));
    }, config.keys.reloadIntervalMs),
    setInterval(() => {
      sweepExpired(db).then(
        (removed) => deps.metrics.sweptRows.inc({ model: 'oidc' }, removed),
        (err) => log.warn({ err }, 'oidc sweep failed'),
      );
    }, config.oidcSweepIntervalMs),
  ];
  for (const timer of timers) timer.unref();

  const resolveToken = (value: string) => jwtAccessTokens.resolve(value);
  const findActiveAccessToken = activeAccessTokenFinder(db);
  const fastToken = machineTokenFastPath({ ...machineTokens, db, secrets });
  // Every OIDC route in one scope, so the edge's checks below hold for each of them.
  app.register(async (scope) => {
    limitStoringRequests(scope, config, pages.refusal);
    refuseNulCharacters(scope, BROWSER_ROUTES, pages.refusal);
    mountRoutes(scope, {
      callback: () => current.callback,
      documents: () => current.documents,
      issuer: config.issuer,
      formPostCheck: sameOriginPostsOnly(deps),
      authorizationCheck: authorizationSizeCap(deps),
      clientRateLimit,
      fastToken: async (form, authorization, jwtProfileIssuer) => {
        const served = await fastToken(form, authorization, jwtProfileIssuer);
        if (served) deps.metrics.tokensIssued.inc({ grant: String(form.get('grant_type')) });
        return served;
      },
    });
    scope.register(async (own) => {
      acceptFormBodies(own);
      registerIntrospection(own, {
        db,
        issuer: config.issuer,
        secrets,
        managementAudience,
        resolveToken,
        claimOnce: machineTokens.claimOnce,
        rateLimit: clientRateLimit,
      });
      registerUserinfo(own, { issuer: config.issuer, resolveToken, findActiveAccessToken });
    });
  });

  const oidc: Oidc = {
    provider: () => current.provider,
    async verifyAccessToken(value) {
      const ref = await resolveToken(value);
      const token = ref && (await findActiveAccessToken(ref));
      if (!token) return undefined;
      return {
        tokenId: hashId(token.payload.jti),
        userId: token.user.id,
        orgId: token.user.org_id,
        clientId: token.payload.clientId,
        scopes: token.scopes,
        expiresAt: new Date(token.payload.exp * 1000),
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

/** The endpoints a browser is sent to: their errors are pages, not JSON. */
const BROWSER_ROUTES = new Set([
  `GET ${ROUTES.authorization}`,
  `GET ${ROUTES.authorization}/:uid`,
  `GET ${ROUTES.end_session}`,
  `POST ${ROUTES.end_session}`,
  `POST ${ROUTES.end_session}/confirm`,
  `GET ${ROUTES.end_session}/success`,
]);

const END_SESSION_PARAMS = new Set([
  'id_token_hint',
  'post_logout_redirect_uri',
  'state',
  'ui_locales',
  'client_id',
  'logout_hint',
]);

interface Mount {
  callback: () => ReturnType<Provider['callback']>;
  documents: () => Documents;
  issuer: string;
  formPostCheck: ReturnType<typeof sameOriginPostsOnly>;
  authorizationCheck: ReturnType<typeof authorizationSizeCap>;
  clientRateLimit: ClientRateLimit;
  fastToken(
    form: URLSearchParams,
    authorization: string | undefined,
    jwtProfileIssuer: string | undefined,
  ): Promise<FastTokenResult>;
}

function mountRoutes(
  app: FastifyInstance,
  { callback, documents, issuer, formPostCheck, authorizationCheck, clientRateLimit, fastToken }: Mount,
): void {
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
    const passthrough = (method: string | string[], url: string) =>
      scope.route({
        method: method as never,
        url,
        onRequest: async (request, reply) => hand(request, reply),
        handler: async () => {},
      });
    serveDocuments(scope, documents);
    passthrough('OPTIONS', DISCOVERY_PATH);
    scope.route({
      method: 'GET',
      url: ROUTES.authorization,
      onRequest: [authorizationCheck, async (request, reply) => hand(request, reply)],
      handler: async () => {},
    });
    passthrough('GET', `${ROUTES.authorization}/:uid`);
    passthrough('OPTIONS', ROUTES.jwks);
    passthrough('OPTIONS', ROUTES.userinfo);
    passthrough('GET', ROUTES.end_session);
    scope.route({
      method: 'POST',
      url: `${ROUTES.end_session}/confirm`,
      onRequest: [formPostCheck, async (request, reply) => hand(request, reply)],
      handler: async () => {},
    });
    passthrough('GET', `${ROUTES.end_session}/success`);
    passthrough('OPTIONS', ROUTES.token);
    passthrough('OPTIONS', ROUTES.introspection);
    passthrough('OPTIONS', ROUTES.revocation);

    // Routes whose form body the edge reads first; the provider then reads the (possibly rewritten) body.
    acceptFormBodies(scope);
    const handOver = (request: FastifyRequest, reply: FastifyReply, form: URLSearchParams) => {
      const body = form.toString();
      (request.raw as unknown as { body: string }).body = body;
      // the provider only reads bodies it sees announced; HTTP/2 clients may send none (and the body changed)
      request.raw.headers['content-length'] = String(Buffer.byteLength(body));
      hand(request, reply);
    };
    scope.post(ROUTES.token, async (request, reply) => {
      if (typeof request.body !== 'string') return hand(request, reply);
      const form = new URLSearchParams(request.body);
      const authorization = request.headers.authorization;
      const jwtProfileIssuer = jwtProfileClient(form, authorization);
      const clientKind = tokenRequestClientKind(form.get('grant_type'));
      const limit = clientRateLimit.check(
        clientKind,
        presentedClientId(form, authorization) ?? jwtProfileIssuer,
        request.ip,
      );
      if (!limit.allowed) return tooManyRequests(reply, limit);
      // cross-origin requests go to the provider, whose CORS rules refuse them for machine clients
      const served =
        request.headers.origin === undefined ? await fastToken(form, authorization, jwtProfileIssuer) : undefined;
      if (served) {
        clientRateLimit.hit(clientKind, served.clientId);
        allowOrigin(request, reply, 'WWW-Authenticate');
        return noStore(reply).send(served.body);
      }
      if (jwtProfileIssuer) form.set('client_id', jwtProfileIssuer); // the provider then finds the machine client
      return handOver(request, reply, form);
    });
    scope.post(ROUTES.revocation, async (request, reply) => {
      if (typeof request.body !== 'string') return hand(request, reply);
      const form = new URLSearchParams(request.body);
      const tokens = form.getAll('token');
      if (tokens.length === 1) form.set('token', encodeForEdge(tokens[0]!));
      return handOver(request, reply, form);
    });

    // end_session by POST (compat.md §6). oidc-provider serves POST only with SameSite=None session cookies, which
    // would weaken every cookie; a 303 to the GET endpoint with the same parameters keeps them Lax.
    scope.post(ROUTES.end_session, async (request, reply) => {
      const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
      const query = new URLSearchParams([...form].filter(([key]) => END_SESSION_PARAMS.has(key)));
      return reply.redirect(`${issuer}${ROUTES.end_session}${query.size ? `?${query}` : ''}`, 303);
    });
  });
}
