// Console area "Organizations": the list (ListOrgs for an IAM_OWNER, else the viewer's own orgs),
// create with SetUpOrg's fields (an org and its first owner), and an org's page with its domain, members and
// deactivate / reactivate / remove.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { OrgFieldName, OrgState } from '@zitadel/proto/zitadel/org_pb.js';
import { TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import { html } from '../views/html.ts';
import { Flash, Input, Pager, PostForm, SearchBox, StateBadge, Submit, Table } from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, inputError, listQuery, pageLinks } from './page.ts';
import { removal, runStateChange, StateForms } from './actions.ts';
import { checkedValues, MembersSection, userIdByName } from './members.ts';
import { HumanFields } from './user-list.ts';

const orgUrl = (id: string, rest = '') =>
  `/ui/console/orgs/${encodeURIComponent(id)}${rest}?${new URLSearchParams({ org: id })}`;

interface NewOrg {
  name?: string;
  userName?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

// A page of organizations at a time, by name: an instance of a thousand orgs rendered whole took 100 ms
// (bench/console-pages.ts); a name search finds the others.
const PAGE_SIZE = 50;

/** An IAM_OWNER's page of every org, by name (ListOrgs); else the viewer's own orgs, which are few. */
async function orgsPage(page: ConsolePage, q: string, offset: number) {
  if (!page.viewer.isIamOwner)
    return {
      total: page.viewer.ownedOrgIds.length,
      orgs: await Promise.all(
        page.viewer.ownedOrgIds.map(async (id) => (await page.run(M.method.getMyOrg, {}, id)).org!),
      ),
    };
  const list = await page.run(AdminService.method.listOrgs, {
    query: { offset: BigInt(offset), limit: PAGE_SIZE, asc: true },
    sortingColumn: OrgFieldName.NAME,
    queries: q
      ? [{ query: { case: 'nameQuery', value: { name: q, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }]
      : [],
  });
  return { total: Number(list.details?.totalResult ?? 0), orgs: list.result };
}

async function showList(page: ConsolePage, form: NewOrg = {}, flash: { error?: string; status?: number } = {}) {
  const { t, viewer } = page;
  const { q, offset } = listQuery(page);
  const { total, orgs } = await orgsPage(page, q, offset);
  const body = html`${
    viewer.isIamOwner &&
    html`<${SearchBox} t=${t} action="/ui/console/orgs" orgId=${page.orgId} label=${t.searchLabel} q=${q} />`
  }
    <${Table}
      t=${t}
      caption=${t.orgsTitle}
      head=${[t.name, t.domain, t.state]}
      rows=${orgs.map((o) => [
        html`<a href=${orgUrl(o.id)}>${o.name}</a>`,
        o.primaryDomain,
        html`<${StateBadge} t=${t} active=${o.state === OrgState.ACTIVE} />`,
      ])}
    />
    <${Pager}
      t=${t}
      total=${total}
      offset=${offset}
      limit=${PAGE_SIZE}
      href=${pageLinks(page, '/orgs', q)}
    />
    ${
      viewer.isIamOwner &&
      html`<section aria-labelledby="new-org">
      <h2 id="new-org">${t.newOrg}</h2>
      <${Flash} error=${flash.error} />
      <${PostForm} action=${page.href('/ui/console/orgs')} csrf=${page.csrf}>
        <${Input} name="name" label=${t.name} value=${form.name} required=${true} />
        <fieldset>
          <legend>${t.ownerTitle}</legend>
          <${HumanFields} t=${t} values=${form} />
        </fieldset>
        <${Submit} label=${t.createOrg} />
      <//>
    </section>`
    }`;
  return page.render('orgs', t.orgsTitle!, body, flash.status);
}

async function create(page: ConsolePage) {
  const form: NewOrg = {
    name: page.field('name'),
    userName: page.field('userName'),
    email: page.field('email'),
    firstName: page.field('firstName'),
    lastName: page.field('lastName'),
  };
  const password = page.field('password');
  try {
    const { orgId } = await page.run(AdminService.method.setUpOrg, {
      org: { name: form.name! },
      user: {
        case: 'human',
        value: {
          userName: form.userName!,
          profile: { firstName: form.firstName!, lastName: form.lastName! },
          email: { email: form.email! },
          ...(password ? { password } : {}),
        },
      },
    });
    return page.reply.redirect(orgUrl(orgId), 303);
  } catch (error) {
    return showList(page, form, { error: inputError(error), status: 400 });
  }
}

const orgIdOf = (page: ConsolePage) => (page.request.params as { orgId: string }).orgId;

async function showOrg(page: ConsolePage, flash: { error?: string; status?: number } = {}) {
  const { t } = page;
  const id = orgIdOf(page);
  const [{ org }, members, memberRoles] = await Promise.all([
    page.run(M.method.getMyOrg, {}, id),
    page.run(M.method.listOrgMembers, { query: { limit: 100 } }, id),
    page.run(M.method.listOrgMemberRoles, {}, id),
  ]);
  const active = org?.state === OrgState.ACTIVE;
  const body = html`<${Flash} error=${flash.error} />
    <p><${StateBadge} t=${t} active=${active} /></p>
    <section aria-labelledby="domains">
      <h2 id="domains">${t.domainsTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.domainsTitle}
        head=${[t.domain, t.primary]}
        rows=${org?.primaryDomain ? [[org.primaryDomain, t.yes]] : []}
      />
    </section>
    <${MembersSection}
      page=${page}
      members=${members.result}
      roles=${memberRoles.result}
      action=${orgUrl(id, '/members')}
    />
    <section class="actions">
      <${StateForms} t=${t} csrf=${page.csrf} active=${active} action=${(rest: string) => orgUrl(id, rest)} />
    </section>`;
  return page.render('orgs', org?.name ?? id, body, flash.status);
}

export function registerOrgs(router: ConsoleRouter): void {
  router.get('/orgs', (page) => showList(page));
  router.post('/orgs', create);
  router.get('/orgs/:orgId', (page) => showOrg(page));
  router.post('/orgs/:orgId/state', async (page) => {
    const id = orgIdOf(page);
    await runStateChange(page, { reactivate: M.method.reactivateOrg, deactivate: M.method.deactivateOrg }, {}, id);
    return page.reply.redirect(orgUrl(id), 303);
  });
  router.post('/orgs/:orgId/members', async (page) => {
    const id = orgIdOf(page);
    try {
      await page.run(
        M.method.addOrgMember,
        { userId: await userIdByName(page, page.field('userName')), roles: checkedValues(page, 'member:') },
        id,
      );
    } catch (error) {
      return showOrg(page, { error: inputError(error), status: 400 });
    }
    return page.reply.redirect(orgUrl(id), 303);
  });
  router.post(
    '/orgs/:orgId/members/:userId/remove',
    removal(
      async (page) => (page.request.params as { userId: string }).userId,
      (page) =>
        page.run(
          M.method.removeOrgMember,
          { userId: (page.request.params as { userId: string }).userId },
          orgIdOf(page),
        ),
      (page) => orgUrl(orgIdOf(page)),
      (page) => orgUrl(orgIdOf(page)),
    ),
  );
  router.post(
    '/orgs/:orgId/remove',
    removal(
      async (page) => (await page.run(M.method.getMyOrg, {}, orgIdOf(page))).org?.name ?? '',
      (page) => page.run(M.method.removeOrg, {}, orgIdOf(page)),
      (page) => orgUrl(orgIdOf(page)),
      () => '/ui/console/orgs',
    ),
  );
}
