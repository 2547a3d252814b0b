// Console area "Overview": counts of what the viewer manages, the org's recent changes, and the links a
// developer needs (discovery document, documentation).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { html } from '../views/html.ts';
import { Table, utcText } from '../views/console/components.ts';
import type { ConsolePage, ConsoleRouter } from './page.ts';

// Gatehouse answers ZITADEL's v1 API, so ZITADEL's reference describes every served method.
const DOCS_URL = 'https://zitadel.com/docs/apis/introduction';

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
    page.run(M.method.listOrgChanges, { query: { limit: 10, asc: false } }),
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
        head=${[t.event, t.editor, t.changed]}
        rows=${changes.result.map((c) => [
          c.eventType?.localizedMessage || c.eventType?.key,
          c.editorDisplayName || c.editorId,
          utcText(c.changeDate, 16),
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
