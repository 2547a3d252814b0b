// Console area "Projects": the list with a name search, paged, and a new project; through the API's
// ListProjects and AddProject. A project's own page is projects.ts.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { ProjectState } from '@zitadel/proto/zitadel/project_pb.js';
import { TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import { html } from '../views/html.ts';
import {
  Flash,
  Input,
  Pager,
  PostForm,
  SearchBox,
  StateBadge,
  Submit,
  Table,
  utcText,
} from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, inputError, url, listQuery, pageLinks } from './page.ts';
import { path } from './project-tabs.ts';

const PAGE_SIZE = 20;

async function showList(page: ConsolePage, flash: { error?: string; status?: number; name?: string } = {}) {
  const { t } = page;
  const { q, offset } = listQuery(page);
  const list = await page.run(M.method.listProjects, {
    query: { offset: BigInt(offset), limit: PAGE_SIZE, asc: true },
    queries: q
      ? [{ query: { case: 'nameQuery', value: { name: q, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }]
      : [],
  });
  const total = Number(list.details?.totalResult ?? 0);
  const search = { t, orgId: page.orgId, label: t.searchLabel, q };
  const body = html`<${SearchBox} ...${search} action="/ui/console/projects" />
    <${Table}
      t=${t}
      caption=${t.projectsTitle}
      head=${[t.name, t.state, t.changed]}
      rows=${list.result.map((p) => [
        html`<a href=${url(page, path(p.id))}>${p.name}</a>`,
        html`<${StateBadge} t=${t} active=${p.state === ProjectState.ACTIVE} />`,
        utcText(p.details?.changeDate, 10),
      ])}
    />
    <${Pager}
      t=${t}
      total=${total}
      offset=${offset}
      limit=${PAGE_SIZE}
      href=${pageLinks(page, '/projects', q)}
    />
    ${
      // a project owner may not create projects (ZITADEL's PROJECT_OWNER has no project.create)
      page.managesOrg &&
      html`<section aria-labelledby="new-project">
      <h2 id="new-project">${t.newProject}</h2>
      <${Flash} error=${flash.error} />
      <${PostForm} action=${url(page, '/projects')} csrf=${page.csrf}>
        <${Input} name="name" label=${t.name} value=${flash.name} required=${true} />
        <${Submit} label=${t.createProject} />
      <//>
    </section>`
    }`;
  return page.render('projects', t.projectsTitle!, body, flash.status);
}

async function create(page: ConsolePage) {
  const name = page.field('name');
  try {
    const { id } = await page.run(M.method.addProject, { name });
    return page.reply.redirect(url(page, path(id)), 303);
  } catch (error) {
    return showList(page, { error: inputError(error, page.t), status: 400, name });
  }
}

export function registerProjectList(router: ConsoleRouter): void {
  router.get('/projects', (page) => showList(page));
  router.post('/projects', create);
}
