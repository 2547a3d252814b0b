// The login pages: interaction routes under the provider's interactions URL /ui/login/:uid (the
// interaction cookie is scoped to that path), and the static assets they use. Registered in their own plugin
// scope with their own body parser and cookie support, apart from the provider's raw routes.
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { chooseLocale, format } from './i18n.ts';
import { SharedRateLimiter } from '../platform/shared-rate-limit.ts';
import { sameOriginPost } from './security.ts';
import { loadLoginPages, VIEWS_DIR, type LoginPages } from './pages.ts';
import {
  ForbiddenPost,
  InvalidCharacter,
  type InteractionProvider,
  type LoginAppDeps,
  type LoginDeps,
} from './interaction.ts';
import { fieldWithNul } from '../platform/text.ts';
import { showLoginName, showStart, submitLoginName, submitPassword, submitSelect } from './login-flow.ts';
import { showRegister, submitRegister } from './register-flow.ts';
import { submitConsent } from './consent-flow.ts';
import { submitRequiredChange } from './password-change-flow.ts';
import { showPasskey, submitPasskey } from './passkey-flow.ts';
import { submitFactorDone, submitFactorSetup, submitSecondFactor } from './second-factor-flow.ts';
import { continueWithIdp, JWT_AUTHORIZE_PATH, receiveJwt } from './jwt-idp-flow.ts';
import { IdpKeyCache } from '../idps/jwt-token.ts';
import { classifyError } from '../platform/error-class.ts';
import { ErrorPage } from '../views/messages.ts';
import { writeDeferred } from '../platform/request-scope.ts';
import { unitOfWork } from '../oidc/write-behind.ts';
import { withLoginPageRows } from './page-read-ahead.ts';

const STATIC: Record<string, { type: string; body: Buffer }> = {
  'style.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('static/style.css', VIEWS_DIR)) },
  'logo.svg': { type: 'image/svg+xml', body: readFileSync(new URL('static/logo.svg', VIEWS_DIR)) },
  // the admin console's: its layout, and the one optional script (copy buttons, confirmations)
  'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('static/console.css', VIEWS_DIR)) },
  'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('static/console.js', VIEWS_DIR)) },
  // loaded by the passkey pages only
  'passkey.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('static/passkey.js', VIEWS_DIR)) },
};

/** `more` adds routes to the pages' scope (the account pages), with the login pages' dependencies. */
export async function registerLogin(
  app: FastifyInstance,
  deps: LoginAppDeps,
  oidc: InteractionProvider,
  more?: (ui: FastifyInstance, login: LoginDeps) => void,
): Promise<void> {
  const pages = await loadLoginPages(deps);
  const login: LoginDeps = {
    config: deps.config,
    db: deps.db,
    secrets: deps.secrets,
    instance: deps.instance,
    metrics: deps.metrics,
    oidc,
    pages,
    hashing: deps.hashing,
    mailer: deps.mailer,
    idpKeys: new IdpKeyCache(deps.config.allowPrivateFetch),
    // Counted in the database, so N instances behind a balancer admit no more than one
    registrations: new SharedRateLimiter(deps.db, 'registration-ip', {
      limit: deps.config.registrationPerIp,
      windowSeconds: 3600,
    }),
  };
  const route =
    (handler: (d: LoginDeps, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      unitOfWork(login.db, () => handler(login, request, reply));
  // The pages that show the login name form: their interaction and IdPs read with one statement.
  const pageRoute =
    (handler: (d: LoginDeps, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    (request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) =>
      withLoginPageRows(login.db, request.params.uid, login.instance.id, () => route(handler)(request, reply));

  await app.register(async (ui) => {
    await ui.register(cookie);
    // Login forms are small; anything bigger is refused before parsing.
    await ui.register(formbody, { bodyLimit: 16 * 1024 });
    // A step's saves (the interaction, the lockout's settlement) are written as one statement before its answer
    // leaves: the next step, maybe on another node, reads them (oidc/write-behind.ts).
    ui.addHook('onSend', async () => writeDeferred());

    // Every field of every login and registration form, and the path and query, in one check.
    ui.addHook('preValidation', async (request) => {
      const body = request.body && typeof request.body === 'object' ? Object.entries(request.body) : [];
      const field =
        fieldWithNul(Object.entries(request.params as object)) ??
        fieldWithNul(Object.entries(request.query as object)) ??
        fieldWithNul(body);
      if (field) throw new InvalidCharacter(field);
    });

    ui.get<{ Params: { file: string } }>('/ui/static/:file', async (request, reply) => {
      const asset = Object.hasOwn(STATIC, request.params.file) ? STATIC[request.params.file] : undefined;
      if (!asset) return reply.code(404).type('text/plain').send('not found');
      return reply
        .type(asset.type)
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(asset.body);
    });

    ui.get('/ui/login/:uid', pageRoute(showStart));
    ui.get('/ui/login/:uid/login-name', pageRoute(showLoginName));
    ui.post('/ui/login/:uid/login-name', route(submitLoginName));
    ui.post('/ui/login/:uid/password', route(submitPassword));
    ui.post('/ui/login/:uid/select', route(submitSelect));
    ui.get('/ui/login/:uid/register', route(showRegister));
    ui.post('/ui/login/:uid/register', route(submitRegister));
    ui.post('/ui/login/:uid/consent', route(submitConsent));
    ui.post('/ui/login/:uid/password-change', route(submitRequiredChange));
    ui.get('/ui/login/:uid/passkey', route(showPasskey));
    ui.post('/ui/login/:uid/passkey', route(submitPasskey));
    ui.post('/ui/login/:uid/second-factor', route(submitSecondFactor));
    ui.post('/ui/login/:uid/factor-setup', route(submitFactorSetup));
    ui.post('/ui/login/:uid/factor-done', route(submitFactorDone));
    ui.get('/ui/login/:uid/idp/:idpId', route(continueWithIdp));
    ui.get(JWT_AUTHORIZE_PATH, route(receiveJwt));
    more?.(ui, login);

    ui.setErrorHandler((error: Error & { statusCode?: number; error?: string }, request, reply) => {
      const locale = chooseLocale(undefined, request.headers['accept-language']);
      const t = pages.texts(locale);
      const errorPage = (status: number, message: string | undefined, code: string) =>
        pages.send(
          reply,
          pages.render(status, locale, ErrorPage, 'errorTitle', { title: t.errorTitle, message, code }),
        );
      if (error instanceof ForbiddenPost) return refuse(pages, request, reply, error.message);
      if (error instanceof InvalidCharacter)
        return errorPage(400, format(t.errorInvalidCharacter!, { field: error.field }), 'invalid_request');
      // oidc-provider's SessionNotFound: the interaction expired, was finished, or its cookie is missing.
      if (error.name === 'SessionNotFound') return errorPage(400, t.errorExpired, 'invalid_request');
      // The database is unreachable: 503 with Retry-After, as the API and the OAuth endpoints answer it, so the
      // person and any monitor see a temporary outage to retry, not a failure of the page.
      const kind = classifyError(error);
      if (kind.kind === 'outage') {
        request.log.error({ err: error }, 'database unavailable');
        reply.header('retry-after', String(kind.retryAfter));
        return errorPage(503, t.errorUnavailable, 'temporarily_unavailable');
      }
      // the client went away: not a server failure, so logged below warning and answered as the client's
      if (kind.kind === 'aborted') request.log.info('client aborted the request');
      const status = kind.kind === 'aborted' ? 400 : kind.status;
      if (status >= 500) request.log.error({ err: error }, 'login page failed');
      if (kind.kind === 'status' && kind.retryAfter !== undefined) reply.header('retry-after', String(kind.retryAfter));
      return errorPage(status, t.errorGeneric, status >= 500 ? 'server_error' : 'invalid_request');
    });
  });
}

function refuse(pages: LoginPages, request: FastifyRequest, reply: FastifyReply, reason: string): FastifyReply {
  request.log.warn({ reason }, 'form post refused');
  const locale = chooseLocale(undefined, request.headers['accept-language']);
  const t = pages.texts(locale);
  return pages.send(
    reply,
    pages.render(403, locale, ErrorPage, 'errorForbiddenTitle', {
      title: t.errorForbiddenTitle,
      message: t.errorForbidden,
      code: 'csrf_check_failed',
    }),
  );
}

/** An onRequest hook for form POSTs that oidc-provider handles itself (the logout confirmation): the Origin /
 *  Sec-Fetch-Site check against cross-site posts; the provider checks its own xsrf token. */
export function sameOriginPostsOnly(deps: Pick<LoginAppDeps, 'config' | 'db' | 'instance'>) {
  const origin = new URL(deps.config.issuer).origin;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (sameOriginPost(request.headers, origin)) return undefined;
    return refuse(await loadLoginPages(deps), request, reply, 'cross-origin form post');
  };
}
