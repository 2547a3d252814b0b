// A project's pages in the console: an overview and one sub-page per part (apps, roles, user grants, project grants,
// members, settings), each at its own URL below the project's (/ui/console/projects/{id}/roles, …) and reached
// through the project's tab navigation. Every tab is rendered in the same frame: the project's name and state, the
// tabs with the current one marked (aria-current), the outcome of the last change, then the tab's own content.
import type { Project } from '@zitadel/proto/zitadel/project_pb.js';
import { ProjectState } from '@zitadel/proto/zitadel/project_pb.js';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { html, type Markup } from '../views/html.ts';
import { Flash, StateBadge } from '../views/console/components.ts';
import { type ConsolePage, url } from './page.ts';

/** A project's console path, and a path as a link that keeps the org in context. */
export const path = (projectId: string, rest = '') => `/projects/${encodeURIComponent(projectId)}${rest}`;
export const projectId = (page: ConsolePage) => (page.request.params as { id: string }).id;

export interface TabContext {
  page: ConsolePage;
  project: Project | undefined;
  /** A link to a path below the project (its actions, its tabs), keeping the org in context. */
  act: (rest: string) => string;
}

export interface ProjectTab {
  /** The tab's path below the project's ('' for the overview). */
  path: string;
  /** The texts' key of its name. */
  label: string;
  body(context: TabContext): Promise<Markup>;
}

export interface TabFlash {
  notice?: string | undefined;
  error?: string | undefined;
  status?: number;
}

function TabNav({ context, tabs, current }: { context: TabContext; tabs: ProjectTab[]; current: ProjectTab }) {
  const { t } = context.page;
  return html`<nav class="tabs" aria-label=${t.projectNav}>
    <ul>
      ${tabs.map(
        (tab) =>
          html`<li>
            <a href=${context.act(tab.path)} aria-current=${tab === current ? 'page' : undefined}>${t[tab.label]}</a>
          </li>`,
      )}
    </ul>
  </nav>`;
}

/** One tab of the project's pages; a project the viewer may not see is the API's "not found" (the 404 page). */
export async function showTab(page: ConsolePage, tabs: ProjectTab[], tab: ProjectTab, flash: TabFlash = {}) {
  const { t } = page;
  const id = projectId(page);
  const { project } = await page.run(M.method.getProjectByID, { id });
  const context: TabContext = { page, project, act: (rest) => url(page, path(id, rest)) };
  const body = html`<p><${StateBadge} t=${t} active=${project?.state === ProjectState.ACTIVE} /></p>
    <${TabNav} context=${context} tabs=${tabs} current=${tab} />
    <${Flash} notice=${flash.notice} error=${flash.error} />
    ${await tab.body(context)}`;
  return page.render('projects', project?.name ?? id, body, flash.status);
}
