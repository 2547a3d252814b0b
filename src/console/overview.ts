// Console area "Overview": counts of what the viewer manages, the latest changes the viewer may see (an instance
// owner's: the whole instance's; an org owner's: every object of the org in context), each named in the page's
// language and linked to the changed object's page while it exists, and the links a developer needs (discovery
// document, documentation).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import type { RecentChange } from '../events/recent.ts';
import { html, type Markup } from '../views/html.ts';
import { withOrg } from '../views/console/layout.ts';
import { Table, utcText } from '../views/console/components.ts';
import { eventLabel } from './event-labels.ts';
import type { ConsolePage, ConsoleRouter } from './page.ts';

// Gatehouse answers ZITADEL's v1 API, so ZITADEL's reference describes every served method.
const DOCS_URL = 'https://zitadel.com/docs/apis/introduction';
const RECENT = 10;

/** The instance's pages its events change, named by their navigation's text. */
const INSTANCE_PAGES: [prefix: string, path: string, text: string][] = [
  ['instance.policy.', '/ui/console/policies', 'navPolicies'],
  ['instance.idp.', '/ui/console/idps', 'navIdps'],
];

/** The changed object's name and page, when it still exists and has a page (in its own org). */
function changedObject(page: ConsolePage, c: RecentChange): { name: string; path: string } | undefined {
  const inOrg = (path: string) => withOrg(path, c.resourceOwner);
  const id = encodeURIComponent;
  if (c.app && c.project)
    return { name: c.app.name, path: inOrg(`/ui/console/projects/${id(c.project.id)}/apps/${id(c.app.id)}`) };
  if (c.project) return { name: c.project.name, path: inOrg(`/ui/console/projects/${id(c.project.id)}`) };
  if (c.user) return { name: c.user.name, path: inOrg(`/ui/console/users/${id(c.user.id)}`) };
  if (c.org) return { name: c.org.name, path: `/ui/console/orgs/${id(c.org.id)}` };
  const instancePage = INSTANCE_PAGES.find(([prefix]) => c.eventType.startsWith(prefix));
  return instancePage && { name: page.t[instancePage[2]] ?? '', path: instancePage[1] };
}

function objectCell(page: ConsolePage, c: RecentChange): Markup {
  const object = changedObject(page, c);
  if (!object) return '–';
  return html`<a href=${object.path}>${object.name}</a>`;
}

async function showOverview(page: ConsolePage) {
  const { t, viewer } = page;
  const total = (list: { details?: { totalResult: bigint } }) => Number(list.details?.totalResult ?? 0);
  const [orgs, projects, apps, users, changes] = await Promise.all([
    viewer.isIamOwner
      ? page.run(AdminService.method.listOrgs, { query: { limit: 1 } }).then(total)
      : viewer.ownedOrgIds.length,
    page.run(M.method.listProjects, { query: { limit: 1 } }),
    page.read(page.deps.reads.orgAppCount, {}),
    page.run(M.method.listUsers, { query: { limit: 1 } }).then(total),
    page.read(viewer.isIamOwner ? page.deps.reads.recentInstanceChanges : page.deps.reads.recentOrgChanges, {
      limit: RECENT,
    }),
  ]);
  const counts: [string | undefined, number][] = [
    [t.countOrgs, orgs],
    [t.countProjects, total(projects)],
    [t.countApps, apps],
    [t.countUsers, users],
  ];
  const body = html`<ul class="counts">
      ${counts.map(([label, n]) => html`<li><strong>${n}</strong> <span>${label}</span></li>`)}
    </ul>
    <section aria-labelledby="recent">
      <h2 id="recent">${t.recentTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.recentTitle}
        head=${[t.event, t.recentObject, t.editor, t.changed]}
        rows=${changes.map((c) => [
          eventLabel(page.locale, c.eventType),
          objectCell(page, c),
          c.editorName || c.editorLoginName || '–',
          utcText(c.createdAt, 16),
        ])}
      />
    </section>
    <section aria-labelledby="links">
      <h2 id="links">${t.linksTitle}</h2>
      <ul>
        <li><a href="/.well-known/openid-configuration">${t.discoveryLink}</a></li>
        <li><a href=${DOCS_URL}>${t.docsLink}</a></li>
      </ul>
    </section>`;
  return page.render('overview', t.overviewTitle!, body);
}

export function registerOverview(router: ConsoleRouter): void {
  router.get('', showOverview);
}
