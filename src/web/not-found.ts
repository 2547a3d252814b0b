// Addresses people type under /ui answered as pages, not with the API's JSON 404: the pages' root goes home, a known
// page asked with a trailing slash goes to the page without it, and any other address is a "page not found" page in
// the request's language, with the security headers and links on to the account page and the console. Paths outside
// /ui are the APIs' and keep their JSON 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundPage } from '../views/messages.ts';
import { chooseLocale } from './locale.ts';
import type { Pages } from './pages.ts';
import { ACCOUNT_PATH, CONSOLE_PATH } from './urls.ts';

const PAGES_ROOT = '/ui';

/** Where the pages' root leads: the console. Whoever types the root is most likely the administrator the quick start
 *  sent to /ui/console; the console signs a person in and shows anyone without an administration role the way to
 *  their own account page. A temporary redirect, so that browsers keep asking while the choice may change. */
const HOME = CONSOLE_PATH;

/** Only a URL of printable ASCII is echoed into a Location header (what a browser sends: the rest percent-encoded). */
const PRINTABLE = /^[!-~]*$/;

/**
 * Registers the pages' root, the trailing slash's redirect and the not-found answer of every path under the root. Call
 * it before the page families register their routes: those are the pages a trailing slash is taken off for.
 */
export function registerNotFound(ui: FastifyInstance, pages: Pages): void {
  const known = knownPages(ui);
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const { ui_locales } = (request.query ?? {}) as { ui_locales?: unknown };
    const locale = chooseLocale(ui_locales, request.headers['accept-language']);
    const props = { accountUrl: ACCOUNT_PATH, consoleUrl: CONSOLE_PATH };
    return pages.send(reply, pages.render(404, locale, NotFoundPage, 'notFoundTitle', props));
  };
  ui.get(PAGES_ROOT, async (_request, reply) => reply.redirect(HOME, 302));
  // Before routing decides: the router matches `/ui/console/users/` as the user page of an empty ID.
  ui.addHook('onRequest', async (request, reply) => {
    const [path = '', query] = request.url.split(/\?(.*)/s);
    if ((request.method === 'GET' || request.method === 'HEAD') && path.endsWith('/') && PRINTABLE.test(request.url)) {
      const page = path.replace(/\/+$/, '');
      if (page === PAGES_ROOT) return reply.redirect(HOME, 302);
      if (known(page)) return reply.redirect(query === undefined ? page : `${page}?${query}`, 308);
    }
    // an empty path segment names no page (no ID is empty)
    if (Object.values(request.params as object).includes('')) return notFound(request, reply);
    return undefined;
  });
  ui.register(
    async (scope) => {
      scope.setNotFoundHandler(notFound);
    },
    { prefix: PAGES_ROOT },
  );
}

/** Whether a path is one of the GET pages registered in `ui` from now on (`:name` matches one path segment). */
function knownPages(ui: FastifyInstance): (path: string) => boolean {
  const patterns: RegExp[] = [];
  ui.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET')) return;
    const segments = route.url
      .split('/')
      .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    patterns.push(new RegExp(`^${segments.join('/')}$`));
  });
  return (path) => patterns.some((p) => p.test(path));
}
