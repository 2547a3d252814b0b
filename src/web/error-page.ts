// How every page answers what its handler did not: a form post that is not ours (403), a field with a character
// no field may hold (400), an interaction that is gone (400), the database out of reach (503), anything else (the
// error's status, a server failure 500); always as a page in the request's language.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { classifyError } from '../platform/error-class.ts';
import { format } from '../views/i18n.ts';
import { ErrorPage } from '../views/messages.ts';
import { ForbiddenPost, InvalidCharacter } from './forms.ts';
import { chooseLocale } from './locale.ts';
import type { PageAppDeps } from './page-deps.ts';
import { loadPages, type Pages } from './pages.ts';
import { sameOriginPost } from './security.ts';

export function answerPageError(pages: Pages) {
  return (error: Error & { statusCode?: number; error?: string }, request: FastifyRequest, reply: FastifyReply) => {
    const locale = chooseLocale(undefined, request.headers['accept-language']);
    const t = pages.texts(locale);
    const errorPage = (status: number, message: string | undefined, code: string) =>
      pages.send(reply, pages.render(status, locale, ErrorPage, 'errorTitle', { title: t.errorTitle, message, code }));
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
    if (status >= 500) request.log.error({ err: error }, 'page failed');
    if (kind.kind === 'status' && kind.retryAfter !== undefined) reply.header('retry-after', String(kind.retryAfter));
    return errorPage(status, t.errorGeneric, status >= 500 ? 'server_error' : 'invalid_request');
  };
}

function refuse(pages: Pages, request: FastifyRequest, reply: FastifyReply, reason: string): FastifyReply {
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
export function sameOriginPostsOnly(deps: Pick<PageAppDeps, 'config' | 'db' | 'instance'>) {
  const origin = new URL(deps.config.issuer).origin;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (sameOriginPost(request.headers, origin)) return undefined;
    return refuse(await loadPages(deps), request, reply, 'cross-origin form post');
  };
}
