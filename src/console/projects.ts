// Console area "Projects": a project's page with its settings (the three checks), roles (add, edit,
// remove), apps, user grants, project grants and members; deactivate, reactivate and remove (the list and creation
// are project-list.ts). Every read and write is the API's operation (GetProjectByID, UpdateProject, …).
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { ProjectState } from '@zitadel/proto/zitadel/project_pb.js';
import { checkedValues, MembersSection, userIdByName } from './members.ts';
import { AppState } from '@zitadel/proto/zitadel/app_pb.js';
import { html } from '../views/html.ts';
import { Checkbox, Flash, Input, PostForm, StateBadge, Submit, Table } from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, url } from './page.ts';
import { pageChange, removal, runStateChange, StateForms } from './actions.ts';
import { ProjectGrantsSection, registerProjectGrants } from './project-grants.ts';

/** A project's console path, and a path as a link that keeps the org in context. */
export const path = (projectId: string, rest = '') => `/projects/${encodeURIComponent(projectId)}${rest}`;
const projectId = (page: ConsolePage) => (page.request.params as { id: string }).id;

async function showProject(page: ConsolePage, flash: { notice?: string; error?: string; status?: number } = {}) {
  const { t } = page;
  const id = projectId(page);
  const { project } = await page.run(M.method.getProjectByID, { id });
  const [roles, apps, grants, projectGrants, members] = await Promise.all([
    page.run(M.method.listProjectRoles, { projectId: id, query: { limit: 200 } }),
    page.run(M.method.listApps, { projectId: id, query: { limit: 200 } }),
    page.run(M.method.listUserGrants, {
      query: { limit: 50 },
      queries: [{ query: { case: 'projectIdQuery', value: { projectId: id } } }],
    }),
    page.run(M.method.listProjectGrants, { projectId: id, query: { limit: 50 } }),
    page.run(M.method.listProjectMembers, { projectId: id, query: { limit: 50 } }),
  ]);
  const memberRoles = await page.run(M.method.listProjectMemberRoles, {});
  const active = project?.state === ProjectState.ACTIVE;
  const act = (rest: string) => url(page, path(id, rest));
  const body = html`<${Flash} notice=${flash.notice} error=${flash.error} />
    <p><${StateBadge} t=${t} active=${active} /></p>
    <section aria-labelledby="settings">
      <h2 id="settings">${t.settingsTitle}</h2>
      <${PostForm} action=${act('')} csrf=${page.csrf}>
        <${Input} name="name" label=${t.name} value=${project?.name} required=${true} />
        ${(['projectRoleAssertion', 'projectRoleCheck', 'hasProjectCheck'] as const).map(
          (name) => html`<${Checkbox} name=${name} label=${t[name]} checked=${project?.[name]} />`,
        )}
        <${Submit} label=${t.save} />
      <//>
    </section>
    <section aria-labelledby="roles">
      <h2 id="roles">${t.rolesTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.rolesTitle}
        head=${[t.roleKey, `${t.displayName} / ${t.group}`, t.actions]}
        rows=${roles.result.map((r) => [
          r.key,
          html`<${PostForm} action=${act(`/roles/${encodeURIComponent(r.key)}`)} csrf=${page.csrf} class="inline">
            <label class="visually-hidden" for=${`role-${r.key}-displayName`}>${t.displayName}</label>
            <input id=${`role-${r.key}-displayName`} name="displayName" value=${r.displayName} maxlength="200" />
            <label class="visually-hidden" for=${`role-${r.key}-group`}>${t.group}</label>
            <input id=${`role-${r.key}-group`} name="group" value=${r.group} maxlength="200" />
            <${Submit} label=${t.save} kind="secondary" />
          <//>`,
          html`<${PostForm}
            action=${act(`/roles/${encodeURIComponent(r.key)}/remove`)}
            csrf=${page.csrf}
            confirm=${t.confirmLead}
          >
            <${Submit} label=${t.remove} kind="secondary" />
          <//>`,
        ])}
      />
      <${PostForm} action=${act('/roles')} csrf=${page.csrf}>
        <div class="row">
          <${Input} name="roleKey" label=${t.roleKey} required=${true} />
          <${Input} name="displayName" idPrefix="new-role-" label=${t.displayName} />
          <${Input} name="group" idPrefix="new-role-" label=${t.group} />
        </div>
        <${Submit} label=${t.addRole} kind="secondary" />
      <//>
    </section>
    <section aria-labelledby="apps">
      <h2 id="apps">${t.appsTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.appsTitle}
        head=${[t.name, t.state]}
        rows=${apps.result.map((a) => [
          html`<a href=${act(`/apps/${encodeURIComponent(a.id)}`)}>${a.name}</a>`,
          html`<${StateBadge} t=${t} active=${a.state === AppState.ACTIVE} />`,
        ])}
      />
      <p><a class="button secondary" href=${act('/apps/new')}>${t.newApp}</a></p>
    </section>
    <section aria-labelledby="grants">
      <h2 id="grants">${t.grantsTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.grantsTitle}
        head=${[t.user, t.roles, t.actions]}
        rows=${grants.result.map((g) => [
          g.userName,
          g.roleKeys.join(', '),
          html`<${PostForm}
            action=${act(`/grants/${encodeURIComponent(g.id)}/remove?${new URLSearchParams({ user: g.userId })}`)}
            csrf=${page.csrf}
            confirm=${t.confirmLead}
          >
            <${Submit} label=${t.remove} kind="secondary" />
          <//>`,
        ])}
      />
      <${PostForm} action=${act('/grants')} csrf=${page.csrf}>
        <${Input} name="userName" idPrefix="grant-" label=${t.userName} required=${true} />
        <fieldset>
          <legend>${t.roles}</legend>
          ${roles.result.map(
            (r) => html`<${Checkbox} name=${`role:${r.key}`} label=${r.displayName || r.key} checked=${false} />`,
          )}
        </fieldset>
        <${Submit} label=${t.grantUser} kind="secondary" />
      <//>
    </section>
    <${ProjectGrantsSection} page=${page} grants=${projectGrants.result} roles=${roles.result} act=${act} />
    <${MembersSection}
      page=${page}
      members=${members.result}
      roles=${memberRoles.result}
      action=${act('/members')}
    />
    <section class="actions"><${StateForms} t=${t} csrf=${page.csrf} active=${active} action=${act} /></section>`;
  return page.render('projects', project?.name ?? id, body, flash.status);
}

/** A change of the project's page, then the page again (303 on success, 400 with the API's message). */
const change = pageChange(showProject, (page, id) => url(page, path(id, '?saved=1')));

export function registerProjects(router: ConsoleRouter): void {
  const back = (page: ConsolePage) => url(page, path(projectId(page)));
  registerProjectGrants(router, {
    change,
    removal: (name, remove) => removal(name, remove, back, back),
  });
  router.get('/projects/:id', (page) =>
    showProject(page, { notice: (page.request.query as { saved?: string }).saved ? page.t.saved : undefined }),
  );
  router.post(
    '/projects/:id',
    change((page, id) =>
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
    change((page, id) =>
      runStateChange(page, { reactivate: M.method.reactivateProject, deactivate: M.method.deactivateProject }, { id }),
    ),
  );
  router.post(
    '/projects/:id/roles',
    change((page, projectId) =>
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
    change((page, projectId) =>
      page.run(M.method.updateProjectRole, {
        projectId,
        roleKey: (page.request.params as { key: string }).key,
        displayName: page.field('displayName'),
        group: page.field('group'),
      }),
    ),
  );
  router.post(
    '/projects/:id/grants',
    change(async (page, projectId) => {
      const userId = await userIdByName(page, page.field('userName'));
      const roleKeys = checkedValues(page, 'role:');
      return page.run(M.method.addUserGrant, { userId, projectId, roleKeys });
    }),
  );
  router.post(
    '/projects/:id/grants/:grantId/remove',
    removal(
      async (page) => String((page.request.query as { user?: unknown }).user ?? ''),
      (page) =>
        page.run(M.method.removeUserGrant, {
          userId: String((page.request.query as { user?: unknown }).user ?? ''),
          grantId: (page.request.params as { grantId: string }).grantId,
        }),
      (page) => url(page, path(projectId(page))),
      (page) => url(page, path(projectId(page))),
    ),
  );
  router.post(
    '/projects/:id/members',
    change(async (page, projectId) =>
      page.run(M.method.addProjectMember, {
        projectId,
        userId: await userIdByName(page, page.field('userName')),
        roles: checkedValues(page, 'member:'),
      }),
    ),
  );
  router.post(
    '/projects/:id/members/:userId/remove',
    removal(
      async (page) => (page.request.params as { userId: string }).userId,
      (page) =>
        page.run(M.method.removeProjectMember, {
          projectId: projectId(page),
          userId: (page.request.params as { userId: string }).userId,
        }),
      (page) => url(page, path(projectId(page))),
      (page) => url(page, path(projectId(page))),
    ),
  );
  router.post(
    '/projects/:id/roles/:key/remove',
    removal(
      async (page) => (page.request.params as { key: string }).key,
      (page) =>
        page.run(M.method.removeProjectRole, {
          projectId: projectId(page),
          roleKey: (page.request.params as { key: string }).key,
        }),
      (page) => url(page, path(projectId(page))),
      (page) => url(page, path(projectId(page))),
    ),
  );
  router.post(
    '/projects/:id/remove',
    removal(
      async (page) => (await page.run(M.method.getProjectByID, { id: projectId(page) })).project?.name ?? '',
      (page) => page.run(M.method.removeProject, { id: projectId(page) }),
      (page) => url(page, path(projectId(page))),
      (page) => url(page, '/projects'),
    ),
  );
}
