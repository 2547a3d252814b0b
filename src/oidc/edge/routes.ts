// Mounts the OIDC routes in Fastify: explicit routes for exactly ZITADEL's endpoints and the provider's sub-routes,
// each handed to the CURRENT provider untouched, except what the fast endpoints answer themselves (fast/). The edge's
// checks (this folder) run first on every one of them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import { tooManyRequests } from '../../platform/rate-limit.ts';
import { withScoped, type Scoped } from '../../platform/request-scope.ts';
import { isBuiltInClient } from '../account-client.ts';
import { tokenRequestClientKind, type ClientRateLimit } from '../client-rate-limit.ts';
import { encodeForEdge } from '../jwt-access-tokens.ts';
import type { ProviderPages } from '../pages.ts';
import { ROUTES } from '../protocol.ts';
import { DISCOVERY_PATH, serveDocuments, type Documents } from '../provider/documents.ts';
import { presentedClient, presentedClientId } from '../fast/client-auth.ts';
import { allowOrigin } from '../fast/cors.ts';
import { registerIntrospection, type IntrospectionDeps } from '../fast/introspection.ts';
import { acceptFormBodies, noStore } from '../fast/oauth.ts';
import { jwtProfileClient, type FastTokenResult } from '../fast/token.ts';
import { registerUserinfo, type UserinfoDeps } from '../fast/userinfo.ts';
import type { ReadAheadKeys } from '../read-ahead.ts';
import { authorizationSizeCap } from './authorization-size.ts';
import { authorizationKeys, resumeKeys } from './read-ahead-keys.ts';
import { refuseNulCharacters } from './nul-guard.ts';
import { limitStoringRequests, type StoringHit } from './storing-limit.ts';

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

/** What the routes hand requests to: the current provider and the fast endpoints. */
export interface Mount {
  config: Config;
  pages: ProviderPages;
  callback: () => ReturnType<Provider['callback']>;
  documents: () => Documents;
  clientRateLimit: ClientRateLimit;
  fastToken(
    form: URLSearchParams,
    authorization: string | undefined,
    jwtProfileIssuer: string | undefined,
  ): Promise<FastTokenResult>;
  introspection: IntrospectionDeps;
  userinfo: UserinfoDeps;
  /** The rows of an authorization request, read with one statement before the provider runs (read-ahead.ts). */
  readAhead(keys: ReadAheadKeys): Promise<Scoped[]>;
}

export function mountOidcRoutes(app: FastifyInstance, mount: Mount): void {
  const { config, pages } = mount;
  // Every OIDC route in one scope, so the edge's checks below hold for each of them.
  app.register(async (scope) => {
    const storingHit = limitStoringRequests(scope, config, pages.refusal);
    refuseNulCharacters(scope, BROWSER_ROUTES, pages.refusal);
    mountProviderRoutes(scope, mount, storingHit);
    scope.register(async (own) => {
      acceptFormBodies(own);
      registerIntrospection(own, mount.introspection);
      registerUserinfo(own, mount.userinfo);
    });
  });
}

/** The routes oidc-provider answers, and the token endpoint whose machine grants the fast path answers first. */
function mountProviderRoutes(
  app: FastifyInstance,
  { config, pages, callback, documents, clientRateLimit, fastToken, readAhead }: Mount,
  storingHit: StoringHit,
): void {
  const issuer = config.issuer;
  const formPostCheck = pages.sameOriginPostsOnly;
  const authorizationCheck = authorizationSizeCap(config.authorizeMaxBytes, pages);
  const { host, protocol } = new URL(issuer);
  const hand = (request: FastifyRequest, reply: FastifyReply) => {
    // Endpoint URLs and cookie flags derive from the configured issuer, never from the client's headers (which a client
    // could forge); the client address is the one Fastify resolved with its trusted proxies.
    const headers = request.raw.headers;
    headers.host = host;
    if (headers[':authority']) headers[':authority'] = host; // HTTP/2: Koa reads the authority before Host
    headers['x-forwarded-proto'] = protocol.slice(0, -1);
    headers['x-forwarded-for'] = request.ip;
    delete headers['x-forwarded-host'];
    reply.hijack();
    void callback()(request.raw, reply.raw);
  };
  // Without its rows read ahead (a database error), the provider reads them itself, and answers for a failure.
  const handReadAhead = async (request: FastifyRequest, reply: FastifyReply, keys: ReadAheadKeys) => {
    const rows = await readAhead(keys).catch((): Scoped[] => []);
    withScoped(rows, () => hand(request, reply));
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
      onRequest: [
        authorizationCheck,
        async (request, reply) => handReadAhead(request, reply, authorizationKeys(request)),
      ],
      handler: async () => {},
    });
    scope.route({
      method: 'GET',
      url: `${ROUTES.authorization}/:uid`,
      onRequest: async (request, reply) => handReadAhead(request, reply, resumeKeys(request)),
      handler: async () => {},
    });
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
    passthrough('OPTIONS', ROUTES.pushed_authorization_request);

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
      const presented = presentedClientId(form, authorization);
      const limit = clientRateLimit.check(clientKind, presented ?? jwtProfileIssuer, request.ip);
      if (!limit.allowed) return tooManyRequests(reply, limit);
      // Cross-origin requests go to the provider, whose CORS rules refuse them for machine clients; so do those of a
      // built-in client's ID, which the provider refuses (provider/client-rules.ts): no fast path may serve them,
      // not even a machine user that bears that name.
      const served =
        request.headers.origin === undefined && !isBuiltInClient(presented)
          ? await fastToken(form, authorization, jwtProfileIssuer)
          : undefined;
      if (served) {
        clientRateLimit.hit(clientKind, served.clientId);
        allowOrigin(request, reply, 'WWW-Authenticate');
        return noStore(reply).send(served.body);
      }
      if (jwtProfileIssuer) form.set('client_id', jwtProfileIssuer); // the provider then finds the machine client
      return handOver(request, reply, form);
    });
    // Pushed authorization requests (RFC 9126 §2): the provider authenticates the client with the token endpoint's
    // methods and algorithms (provider.ts) and stores the request. The per-client budget is the token endpoint's; a
    // push without client authentication (a public client's) also counts against its address like an authorization
    // request, since anyone may send one.
    scope.post(ROUTES.pushed_authorization_request, async (request, reply) => {
      if (typeof request.body !== 'string') return hand(request, reply);
      const form = new URLSearchParams(request.body);
      const authorization = request.headers.authorization;
      const limit = clientRateLimit.check('app', presentedClientId(form, authorization), request.ip);
      if (!limit.allowed) return tooManyRequests(reply, limit);
      if (unauthenticated(form, authorization)) {
        const stored = storingHit(request.ip);
        if (!stored.allowed) return tooManyRequests(reply, stored);
      }
      return handOver(request, reply, form);
    });
    scope.post(ROUTES.revocation, async (request, reply) => {
      if (typeof request.body !== 'string') return hand(request, reply);
      const form = new URLSearchParams(request.body);
      const tokens = form.getAll('token');
      if (tokens.length === 1) form.set('token', encodeForEdge(tokens[0]!));
      return handOver(request, reply, form);
    });

    // end_session by POST (RP-Initiated Logout 1.0 §2). oidc-provider serves POST only with SameSite=None session
    // cookies, which would weaken every cookie; a 303 to the GET endpoint with the same parameters keeps them Lax.
    scope.post(ROUTES.end_session, async (request, reply) => {
      const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
      const query = new URLSearchParams([...form].filter(([key]) => END_SESSION_PARAMS.has(key)));
      return reply.redirect(`${issuer}${ROUTES.end_session}${query.size ? `?${query}` : ''}`, 303);
    });
  });
}

/** A request that presents no client authentication (a public client's, or a malformed one the provider refuses). */
function unauthenticated(form: URLSearchParams, authorization: string | undefined): boolean {
  try {
    return presentedClient(form, authorization).method === 'none';
  } catch {
    return true;
  }
}
