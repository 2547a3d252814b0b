// The admin console at /ui/console, registered in the pages' scope (web/plugin.ts): the
// same cookies, form parser, NUL check and error pages. Each area is a route module (overview.ts, orgs.ts,
// projects.ts, apps.ts, audit.ts, user-list.ts, user-detail.ts, user-actions.ts; identity providers and policies
// the same way) that registers GET pages and POST actions on the console router (page.ts).
import type { FastifyInstance } from 'fastify';
import type { PageDeps } from '../web/page-deps.ts';
import { CONSOLE_CALLBACK_PATH } from '../oidc/account-client.ts';
import type { Operation } from '../management/operation.ts';
import type { ManagementReads } from '../management/plugin.ts';
import { createRunners } from './access.ts';
import { registerApps } from './apps.ts';
import { registerAudit } from './audit.ts';
import { registerIdps } from './idps.ts';
import { registerPolicies } from './policies.ts';
import { registerUserActions } from './user-actions.ts';
import { registerUserDetail } from './user-detail.ts';
import { registerUserList } from './user-list.ts';
import { registerOrgs } from './orgs.ts';
import { consoleCsrf, consoleRouter } from './page.ts';
import { registerOverview } from './overview.ts';
import { registerProjectList } from './project-list.ts';
import { registerProjects } from './projects.ts';
import { CONSOLE_PATH, endConsoleSession, finishSignIn, signOutUrl } from './session.ts';

export function registerConsole(
  ui: FastifyInstance,
  web: PageDeps,
  operations: Operation[],
  reads: ManagementReads,
): void {
  const router = consoleRouter(ui, { web, ...createRunners(web.db, operations), reads });
  registerOverview(router);
  registerOrgs(router);
  registerProjectList(router);
  registerProjects(router);
  registerApps(router);
  registerAudit(router);
  registerUserList(router);
  registerUserDetail(router);
  registerUserActions(router);
  registerIdps(router);
  registerPolicies(router);

  // Outside the router: these run without a console session.
  ui.get(CONSOLE_CALLBACK_PATH, async (request, reply) => {
    const back = await finishSignIn(web, request, reply);
    // a callback this browser did not start (or a cancelled sign-in) starts over, without a loop
    return reply.redirect(back ?? '/', 303);
  });
  ui.post(`${CONSOLE_PATH}/sign-out`, async (request, reply) => {
    consoleCsrf(web).check(request, web.config.issuer);
    await endConsoleSession(web, request, reply);
    return reply.redirect(signOutUrl(web.config.issuer), 303);
  });
}
