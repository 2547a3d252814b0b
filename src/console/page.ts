// The console's request pipeline, for every route module: session (else sign-in), viewer (else the "no
// access" page), CSRF on every POST, the org in context, and rendering into the console layout with the strict CSP
// (the one first-party script only). The API's refusals become pages: 404 for what the viewer may not see (another
// org's ids, as the API answers them), the form again with the message for bad input. Also what every list and link
// shares: links that keep the org in context (`url`), a list's search and pages; the actions on an object: actions.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler } from 'fastify';
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { Locale, Texts } from '../views/i18n.ts';
import { chooseLocale } from '../web/locale.ts';
import type { PageDeps } from '../web/page-deps.ts';
import { formField } from '../web/forms.ts';
import { cookieCsrf } from '../web/cookie-csrf.ts';
import { HTML_SECURITY_HEADERS, SCRIPT_PAGE_CSP } from '../web/security.ts';
import type { Read } from '../management/operation.ts';
import type { ManagementReads } from '../management/plugin.ts';
import { AppError, Code, permissionDenied } from '../platform/errors.ts';
import { renderDocument, type Markup } from '../views/html.ts';
import { ConsoleLayout, type ConsoleFrame, type NavOrg, withOrg } from '../views/console/layout.ts';
import { html } from '../views/html.ts';
import { managesOrg, orgInContext, type Run, type RunRead, type Viewer, viewerOf } from './access.ts';
import { consoleUser, signInRedirect } from './session.ts';
import { ACCOUNT_PATH, CONSOLE_PATH } from '../web/urls.ts';
import { formErrorText } from './form-errors.ts';
import { consoleTexts } from './texts.ts';

/** The console pages allow their one script, and nothing else. */
const CONSOLE_HEADERS = {
  ...HTML_SECURITY_HEADERS,
  'content-security-policy': SCRIPT_PAGE_CSP,
};

export interface ConsoleDeps {
  web: PageDeps;
  run: Run;
  read: RunRead;
  /** The reads no v1 method serves (`page.read`'s first argument). */
  reads: ManagementReads;
}

/** One console request, as a route module's handler sees it. */
export interface ConsolePage {
  deps: ConsoleDeps;
  request: FastifyRequest;
  reply: FastifyReply;
  viewer: Viewer;
  /** The org the page acts on (`?org=`, else the viewer's). */
  orgId: string;
  /** Whether the viewer manages that org (ORG_OWNER, IAM_OWNER), not only projects in it (PROJECT_OWNER). */
  managesOrg: boolean;
  locale: Locale;
  t: Texts;
  csrf: string;
  /** An operation of the API as this viewer, on the org in context unless another is named. */
  run<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageInitShape<I>,
    orgId?: string,
  ): Promise<MessageShape<O>>;
  /** A read no operation serves (one of `deps.reads`), as this viewer, on the org in context. */
  read<R, T>(read: Read<R, T>, request: R): Promise<T>;
  /** The page in the console's layout. */
  render(area: string, title: string, body: Markup, status?: number): Promise<FastifyReply>;
  /** A posted form field ('' when absent). */
  field(name: string): string;
  /** A link that keeps the org in context. */
  href(path: string): string;
}

export type ConsoleHandler = (page: ConsolePage) => Promise<FastifyReply>;

/** What route modules register with: GET pages and POST actions under /ui/console. */
export interface ConsoleRouter {
  get(path: string, handler: ConsoleHandler): void;
  post(path: string, handler: ConsoleHandler): void;
}

export const consoleCsrf = (deps: PageDeps) => cookieCsrf(deps.secrets, 'gatehouse_console_csrf', CONSOLE_PATH);

async function orgChoices(page: ConsolePage): Promise<NavOrg[]> {
  const { viewer } = page;
  if (viewer.isIamOwner) {
    const orgs = await page.run(AdminService.method.listOrgs, { query: { limit: 50 } });
    const choices = orgs.result.map((o) => ({ id: o.id, name: o.name }));
    return choices.some((o) => o.id === page.orgId) ? choices : [...choices, { id: page.orgId, name: page.orgId }];
  }
  const owned = await Promise.all(
    viewer.ownedOrgIds.map(async (id) => {
      const { org } = await page.run(ManagementService.method.getMyOrg, {}, id);
      return { id, name: org?.name ?? id };
    }),
  );
  const projectOrgIds = viewer.projectOrgIds.filter((id) => !viewer.ownedOrgIds.includes(id));
  if (projectOrgIds.length === 0) return owned;
  // the orgs of the viewer's projects, named by ListMyProjectOrgs (a project member may not read the org itself)
  const mine = await page.run(AuthService.method.listMyProjectOrgs, { query: { limit: 1000 } });
  const names = new Map(mine.result.map((o) => [o.id, o.name]));
  return [...owned, ...projectOrgIds.map((id) => ({ id, name: names.get(id) ?? id }))];
}

// A viewer who manages no org in context but projects in it (PROJECT_OWNER) reaches the project pages
// only: every other page is the "not found" page before it reads anything (deny by default), its start page the
// projects list, and the navigation shows "Projects" alone.
const PROJECT_PAGES = /^\/projects(\/|$)/;
const PROJECT_AREAS = ['projects'];

export function consoleRouter(ui: FastifyInstance, deps: ConsoleDeps): ConsoleRouter {
  const { web } = deps;
  const csrf = consoleCsrf(web);
  const handle =
    (method: 'GET' | 'POST', path: string, handler: ConsoleHandler) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (method === 'POST') csrf.check(request, web.config.issuer);
      const user = await consoleUser(web, request, reply);
      const viewer = user && (await viewerOf(web.db, user));
      // A POST without a session goes to its page first; nothing is changed.
      if (!viewer) return method === 'GET' ? signInRedirect(web, request, reply) : reply.redirect(CONSOLE_PATH, 303);
      const locale = chooseLocale(undefined, request.headers['accept-language']);
      const t = consoleTexts(locale);
      const query = request.query as Record<string, unknown>;
      const orgId = orgInContext(viewer, typeof query.org === 'string' ? query.org : undefined);
      const page: ConsolePage = {
        deps,
        request,
        reply,
        viewer,
        orgId,
        managesOrg: managesOrg(viewer, orgId),
        locale,
        t,
        csrf: csrf.token(request, reply, web.config.issuer.startsWith('https:')),
        run: (m, r, org) => deps.run(viewer, m, org ?? orgId, r),
        read: (read, r) => deps.read(viewer, read, orgId, r),
        field: (name) => formField(request, name)?.trim() ?? '',
        href: (path) => withOrg(path, orgId),
        async render(area, title, body, status = 200) {
          const frame: ConsoleFrame = {
            t,
            instanceName: web.pages.instanceName,
            area,
            org: viewer.canManage ? { current: orgId, choices: await orgChoices(page) } : undefined,
            ...(!page.managesOrg && { areas: PROJECT_AREAS }),
            csrf: page.csrf,
          };
          return reply
            .code(status)
            .headers({ ...CONSOLE_HEADERS, 'content-language': locale, 'content-type': 'text/html; charset=utf-8' })
            .send(renderDocument(ConsoleLayout({ frame, title, children: body })));
        },
      };
      if (!viewer.canManage) return noAccess(page);
      try {
        if (!page.managesOrg && !PROJECT_PAGES.test(path)) {
          if (path === '' && method === 'GET') return reply.redirect(page.href(`${CONSOLE_PATH}/projects`), 303);
          throw permissionDenied('No matching permissions found', 'CONSOLE-pr0j');
        }
        return await handler(page);
      } catch (error) {
        if (error instanceof AppError && (error.code === Code.NotFound || error.code === Code.PermissionDenied))
          return page.render('', t.notFoundTitle!, html`<p class="lead">${t.notFoundLead}</p>`, 404);
        throw error;
      }
    };
  return {
    get: (path, handler) => ui.get(`${CONSOLE_PATH}${path}`, { onSend: serverTiming }, handle('GET', path, handler)),
    post: (path, handler) => ui.post(`${CONSOLE_PATH}${path}`, { onSend: serverTiming }, handle('POST', path, handler)),
  };
}

/** Every page's budget is 50 ms p99 at the server: the time from the request's arrival to its
 *  response (session, permission checks, statements, rendering), as the W3C Server-Timing header `app;dur=<ms>`,
 *  which the bench collects per page (bench/console-pages.ts). It tells the signed-in person nothing a stopwatch
 *  would not. */
const serverTiming: onSendAsyncHookHandler = async (_request, reply, payload) => {
  reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
  return payload;
};

/** A person without a management role: a short page and no administration data. */
function noAccess(page: ConsolePage): Promise<FastifyReply> {
  const { t } = page;
  return page.render(
    '',
    t.noAccessTitle!,
    html`<p class="lead" id="no-access">${t.noAccessLead}</p>
      <p><a class="button primary" href=${ACCOUNT_PATH}>${t.toAccount}</a></p>`,
    403,
  );
}

/** The API's refusal of a form's input, as the message shown above the form again (400) in the page's words
 *  (form-errors.ts), else rethrown. */
export function inputError(error: unknown, t: Texts): string | undefined {
  const codes: number[] = [Code.InvalidArgument, Code.AlreadyExists, Code.FailedPrecondition];
  if (error instanceof AppError && codes.includes(error.code)) return formErrorText(t, error);
  throw error;
}

/** A list page's search text (`?q=`, its first 200 characters) and offset (`?offset=`, else 0). */
export function listQuery(page: ConsolePage): { q: string; offset: number } {
  const query = page.request.query as { q?: unknown; offset?: unknown };
  return { q: String(query.q ?? '').slice(0, 200), offset: Math.max(0, Number(query.offset) || 0) };
}

/** A link to a console page (`p` below /ui/console) that keeps the org in context. */
export const url = (page: ConsolePage, p: string) => page.href(`/ui/console${p}`);

/** A list page's links to its other pages of results (`path` below /ui/console), with the same search. */
export const pageLinks = (page: ConsolePage, path: string, q: string) => (offset: number) =>
  url(page, `${path}?${new URLSearchParams({ q, offset: String(offset) })}`);
