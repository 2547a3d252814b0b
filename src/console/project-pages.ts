// The content of each of a project's tabs (project-tabs.ts frames them; projects.ts routes them): what each reads
// through the API's operations and the forms it offers. Each tab reads only what it shows.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { AppState } from '@zitadel/proto/zitadel/app_pb.js';
import { ProjectState } from '@zitadel/proto/zitadel/project_pb.js';
import { html } from '../views/html.ts';
import { Checkbox, Input, PostForm, StateBadge, Submit, Table } from '../views/console/components.ts';
import { APP_KINDS, kindOf } from './app-kinds.ts';
import { clientIdOf } from './app-parts.ts';
import { APP_TYPES } from '../management/app-messages.ts';
import { StateForms } from './actions.ts';
import { MembersSection } from './members.ts';
import { ProjectGrantsSection } from './project-grants.ts';
import type { TabContext } from './project-tabs.ts';

const total = (list: { details?: { totalResult: bigint } }) => Number(list.details?.totalResult ?? 0);
const roleList = ({ page, project }: TabContext) =>
  page.run(M.method.listProjectRoles, { projectId: project!.id, query: { limit: 200 } });

/** How many of each part the project has, each a link to its tab, and the first thing a newcomer does: "New app". */
export async function overviewTab({ page, project, act }: TabContext) {
  const { t } = page;
  const projectId = project!.id;
  const byProject = { projectId, query: { limit: 1 } };
  const [apps, roles, grants, projectGrants, members] = await Promise.all([
    page.run(M.method.listApps, byProject),
    page.run(M.method.listProjectRoles, byProject),
    page.run(M.method.listUserGrants, {
      query: { limit: 1 },
      queries: [{ query: { case: 'projectIdQuery', value: { projectId } } }],
    }),
    page.run(M.method.listProjectGrants, byProject),
    page.run(M.method.listProjectMembers, byProject),
  ]);
  const counts: [string, string | undefined, number][] = [
    ['/apps', t.appsTitle, total(apps)],
    ['/roles', t.rolesTitle, total(roles)],
    ['/grants', t.grantsTitle, total(grants)],
    ['/project-grants', t.projectGrantsTitle, total(projectGrants)],
    ['/members', t.membersTitle, total(members)],
  ];
  return html`<dl class="facts">
      <dt>${t.projectIdLabel}</dt>
      <dd id="project-id">${projectId}</dd>
    </dl>
    <ul class="counts">
      ${counts.map(
        ([rest, label, n]) => html`<li><a href=${act(rest)}><strong>${n}</strong> <span>${label}</span></a></li>`,
      )}
    </ul>
    <p class="section-actions"><a class="button primary" href=${act('/apps/new')}>${t.newApp}</a></p>`;
}

export async function appsTab({ page, project, act }: TabContext) {
  const { t } = page;
  const apps = await page.run(M.method.listApps, { projectId: project!.id, query: { limit: 200 } });
  const kindLabel = (config: (typeof apps.result)[number]['config']) =>
    t[APP_KINDS[kindOf(config.case === 'oidcConfig' ? APP_TYPES[config.value.appType] : undefined)].label];
  return html`<section aria-labelledby="apps">
    <h2 id="apps">${t.appsTitle}</h2>
    <p class="section-actions"><a class="button primary" href=${act('/apps/new')}>${t.newApp}</a></p>
    <${Table}
      t=${t}
      caption=${t.appsTitle}
      head=${[t.name, t.kind, t.clientId, t.state]}
      rows=${apps.result.map((a) => [
        html`<a href=${act(`/apps/${encodeURIComponent(a.id)}`)}>${a.name}</a>`,
        kindLabel(a.config),
        html`<code>${clientIdOf(a.config)}</code>`,
        html`<${StateBadge} t=${t} active=${a.state === AppState.ACTIVE} />`,
      ])}
    />
  </section>`;
}

/** The roles as the API has them: add one (AddProjectRole), edit its display name and group (UpdateProjectRole),
 *  remove it (RemoveProjectRole). */
export async function rolesTab(context: TabContext) {
  const { page, act } = context;
  const { t } = page;
  const roles = await roleList(context);
  return html`<section aria-labelledby="roles">
    <h2 id="roles">${t.rolesTitle}</h2>
    <${PostForm} action=${act('/roles')} csrf=${page.csrf}>
      <div class="row">
        <${Input} name="roleKey" label=${t.roleKey} required=${true} />
        <${Input} name="displayName" idPrefix="new-role-" label=${t.displayName} />
        <${Input} name="group" idPrefix="new-role-" label=${t.group} />
      </div>
      <${Submit} label=${t.addRole} />
    <//>
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
  </section>`;
}

export async function grantsTab(context: TabContext) {
  const { page, project, act } = context;
  const { t } = page;
  const [roles, grants] = await Promise.all([
    roleList(context),
    page.run(M.method.listUserGrants, {
      query: { limit: 50 },
      queries: [{ query: { case: 'projectIdQuery', value: { projectId: project!.id } } }],
    }),
  ]);
  return html`<section aria-labelledby="grants">
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
  </section>`;
}

export async function projectGrantsTab(context: TabContext) {
  const { page, project, act } = context;
  const [roles, grants] = await Promise.all([
    roleList(context),
    page.run(M.method.listProjectGrants, { projectId: project!.id, query: { limit: 50 } }),
  ]);
  return html`<${ProjectGrantsSection} page=${page} grants=${grants.result} roles=${roles.result} act=${act} />`;
}

export async function membersTab({ page, project, act }: TabContext) {
  const [members, memberRoles] = await Promise.all([
    page.run(M.method.listProjectMembers, { projectId: project!.id, query: { limit: 50 } }),
    page.run(M.method.listProjectMemberRoles, {}),
  ]);
  return html`<${MembersSection}
    page=${page}
    members=${members.result}
    roles=${memberRoles.result}
    action=${act('/members')}
  />`;
}

/** The name and the three checks (UpdateProject), then deactivate, reactivate and remove. */
export async function settingsTab({ page, project, act }: TabContext) {
  const { t } = page;
  return html`<section aria-labelledby="settings">
      <h2 id="settings">${t.settingsTitle}</h2>
      <${PostForm} action=${act('/settings')} csrf=${page.csrf}>
        <${Input} name="name" label=${t.name} value=${project?.name} required=${true} />
        ${(['projectRoleAssertion', 'projectRoleCheck', 'hasProjectCheck'] as const).map(
          (name) => html`<${Checkbox} name=${name} label=${t[name]} checked=${project?.[name]} />`,
        )}
        <${Submit} label=${t.save} />
      <//>
    </section>
    <section class="actions">
      <${StateForms} t=${t} csrf=${page.csrf} active=${project?.state === ProjectState.ACTIVE} action=${act} />
    </section>`;
}
