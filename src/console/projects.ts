// Console area "Projects": a project's pages, an overview and a tab per part (project-tabs.ts, project-pages.ts), and
// the changes posted on them: settings (the three checks), roles (add, edit, remove), user grants, project grants,
// members; deactivate, reactivate and remove (the list and creation are project-list.ts). A change lands on the tab
// it was made on. Every read and write is the API's operation (GetProjectByID, UpdateProject, AddProjectRole, …).
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { checkedValues, userIdByName } from './members.ts';
import { type ConsolePage, type ConsoleRouter, url } from './page.ts';
import { pageChange, removal, runStateChange } from './actions.ts';
import { registerProjectGrants } from './project-grants.ts';
import {
  appsTab,
  grantsTab,
  membersTab,
  overviewTab,
  projectGrantsTab,
  rolesTab,
  settingsTab,
} from './project-pages.ts';
import { path, type ProjectTab, projectId, showTab } from './project-tabs.ts';

const TABS = {
  overview: { path: '', label: 'projectOverviewTab', body: overviewTab },
  apps: { path: '/apps', label: 'appsTitle', body: appsTab },
  roles: { path: '/roles', label: 'rolesTitle', body: rolesTab },
  grants: { path: '/grants', label: 'grantsTitle', body: grantsTab },
  projectGrants: { path: '/project-grants', label: 'projectGrantsTitle', body: projectGrantsTab },
  members: { path: '/members', label: 'membersTitle', body: membersTab },
  settings: { path: '/settings', label: 'settingsTitle', body: settingsTab },
} satisfies Record<string, ProjectTab>;
const TAB_LIST: ProjectTab[] = Object.values(TABS);

/** A change posted on a tab, then that tab again (303 with its notice, or 400 with the API's message). */
const changeOn = (tab: ProjectTab) =>
  pageChange(
    (page, flash) => showTab(page, TAB_LIST, tab, flash),
    (page, id) => url(page, path(id, `${tab.path}?saved=1`)),
  );

/** A confirmed removal made on a tab, back to that tab. */
const removalOn =
  (tab: ProjectTab) =>
  (name: (page: ConsolePage) => Promise<string>, remove: (page: ConsolePage) => Promise<unknown>) => {
    const back = (page: ConsolePage) => url(page, path(projectId(page), tab.path));
    return removal(name, remove, back, back);
  };

const param = (page: ConsolePage, name: string) => (page.request.params as Record<string, string>)[name]!;

export function registerProjects(router: ConsoleRouter): void {
  for (const tab of TAB_LIST) {
    router.get(`/projects/:id${tab.path}`, (page) =>
      showTab(page, TAB_LIST, tab, {
        notice: (page.request.query as { saved?: string }).saved ? page.t.saved : undefined,
      }),
    );
  }
  registerProjectGrants(router, { change: changeOn(TABS.projectGrants), removal: removalOn(TABS.projectGrants) });
  const settings = changeOn(TABS.settings);
  router.post(
    '/projects/:id/settings',
    settings((page, id) =>
      page.run(M.method.updateProject, {
        id,
        name: page.field('name'),
        projectRoleAssertion: page.field('projectRoleAssertion') === 'on',
        projectRoleCheck: page.field('projectRoleCheck') === 'on',
        hasProjectCheck: page.field('hasProjectCheck') === 'on',
      }),
    ),
  );
  router.post(
    '/projects/:id/state',
    settings((page, id) =>
      runStateChange(page, { reactivate: M.method.reactivateProject, deactivate: M.method.deactivateProject }, { id }),
    ),
  );
  router.post(
    '/projects/:id/remove',
    removal(
      async (page) => (await page.run(M.method.getProjectByID, { id: projectId(page) })).project?.name ?? '',
      (page) => page.run(M.method.removeProject, { id: projectId(page) }),
      (page) => url(page, path(projectId(page), TABS.settings.path)),
      (page) => url(page, '/projects'),
    ),
  );
  const roles = changeOn(TABS.roles);
  router.post(
    '/projects/:id/roles',
    roles((page, projectId) =>
      page.run(M.method.addProjectRole, {
        projectId,
        roleKey: page.field('roleKey'),
        displayName: page.field('displayName') || page.field('roleKey'),
        group: page.field('group'),
      }),
    ),
  );
  router.post(
    '/projects/:id/roles/:key',
    roles((page, projectId) =>
      page.run(M.method.updateProjectRole, {
        projectId,
        roleKey: param(page, 'key'),
        displayName: page.field('displayName'),
        group: page.field('group'),
      }),
    ),
  );
  router.post(
    '/projects/:id/roles/:key/remove',
    removalOn(TABS.roles)(
      async (page) => param(page, 'key'),
      (page) => page.run(M.method.removeProjectRole, { projectId: projectId(page), roleKey: param(page, 'key') }),
    ),
  );
  router.post(
    '/projects/:id/grants',
    changeOn(TABS.grants)(async (page, projectId) => {
      const userId = await userIdByName(page, page.field('userName'));
      const roleKeys = checkedValues(page, 'role:');
      return page.run(M.method.addUserGrant, { userId, projectId, roleKeys });
    }),
  );
  const grantUser = (page: ConsolePage) => String((page.request.query as { user?: unknown }).user ?? '');
  router.post(
    '/projects/:id/grants/:grantId/remove',
    removalOn(TABS.grants)(
      async (page) => grantUser(page),
      (page) => page.run(M.method.removeUserGrant, { userId: grantUser(page), grantId: param(page, 'grantId') }),
    ),
  );
  router.post(
    '/projects/:id/members',
    changeOn(TABS.members)(async (page, projectId) =>
      page.run(M.method.addProjectMember, {
        projectId,
        userId: await userIdByName(page, page.field('userName')),
        roles: checkedValues(page, 'member:'),
      }),
    ),
  );
  router.post(
    '/projects/:id/members/:userId/remove',
    removalOn(TABS.members)(
      async (page) => param(page, 'userId'),
      (page) => page.run(M.method.removeProjectMember, { projectId: projectId(page), userId: param(page, 'userId') }),
    ),
  );
}
