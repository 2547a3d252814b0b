// ListUserGrants (ZITADEL's UserGrantQuery, every kind) and ListMyUserGrants: one page of grants with the user, org and
// project columns their messages show. The user text filters find their users through the global pattern indexes of
// migrations/0130_grant_search.sql, whichever org the users are in (a grant's user may be of any org);
// test/management/list-plans.test.ts holds the plans to index scans.
import type { Db } from '../platform/db.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import { GRANT_COLUMNS, GRANT_TABLES, type UserGrantRow } from './queries.ts';
import { ORG_COLUMNS, type OrgRow } from '../orgs/queries.ts';

const TEXT_COLUMNS = {
  userName: 'u.user_name',
  firstName: 'u.first_name',
  lastName: 'u.last_name',
  email: 'u.email',
  displayName: 'u.display_name',
  orgName: 'o.name',
  orgDomain: 'o.primary_domain',
  projectName: 'p.name',
};

const ID_COLUMNS = { userId: 'g.user_id', projectId: 'g.project_id', projectGrantId: 'g.project_grant_id' };

export type GrantFilter =
  | { field: keyof typeof ID_COLUMNS; id: string }
  | { field: keyof typeof TEXT_COLUMNS; text: TextFilter }
  /** ZITADEL's role key query matches a key the grant holds, whatever its method says. */
  | { field: 'roleKey'; roleKey: string }
  | { field: 'userType'; type: UserGrantRow['user_type'] }
  /** withGranted: also the grants other orgs hold on the org's own projects (through project grants). */
  | { field: 'withGranted' };

function grantPage(db: Db, where: Conditions, page: Page): Promise<ListResult<UserGrantRow>> {
  return listPage<UserGrantRow>(
    db,
    { select: GRANT_COLUMNS, from: GRANT_TABLES, where, orderBy: ['g.created_at', 'g.id'] },
    page,
  );
}

/** The grants the org in context holds (user_grants_org_idx), or with withGranted also those on its projects
 *  (user_grants_project_idx), narrowed by the filters given. */
export function listUserGrants(
  db: Db,
  orgId: string,
  filters: GrantFilter[],
  page: Page,
): Promise<ListResult<UserGrantRow>> {
  const where = new Conditions();
  const org = where.param(orgId);
  where.add(
    filters.some((f) => f.field === 'withGranted')
      ? `(g.org_id = ${org} OR g.project_id = ANY (ARRAY(SELECT id FROM projects WHERE org_id = ${org})))`
      : `g.org_id = ${org}`,
  );
  for (const f of filters) {
    if (f.field === 'roleKey') where.add('? = ANY (g.role_keys)', f.roleKey);
    else if (f.field === 'userType') where.add('u.type = ?', f.type);
    else if ('id' in f) where.add(`${ID_COLUMNS[f.field]} = ?`, f.id);
    else if ('text' in f) where.text(TEXT_COLUMNS[f.field], f.text);
  }
  return grantPage(db, where, page);
}

/** The caller's own grants, whichever org holds them (user_grants_user_idx). */
export function listMyUserGrants(db: Db, userId: string, page: Page): Promise<ListResult<UserGrantRow>> {
  return grantPage(db, new Conditions().add('g.user_id = ?', userId), page);
}

/** Whose orgs ListMyProjectOrgs lists (ZITADEL's rule): with a token of an app's project, the orgs holding the
 *  user's grants of that project; otherwise the orgs the user is a member of, every org for an instance owner. */
export type ProjectOrgsOf = { userId: string; projectId: string } | { memberOf: readonly string[] } | { allOrgs: true };

export function listProjectOrgs(
  db: Db,
  of: ProjectOrgsOf,
  filters: { name?: TextFilter; domain?: TextFilter }[],
  page: Page,
): Promise<ListResult<OrgRow>> {
  const where = new Conditions();
  if ('projectId' in of) {
    const held = where.param(of.userId);
    where.add(
      `o.id IN (SELECT g.org_id FROM user_grants g
                WHERE g.user_id = ${held} AND g.project_id = ? AND g.state = 'active')`,
      of.projectId,
    );
  } else if ('memberOf' in of) where.add('o.id = ANY (?::text[])', [...of.memberOf]);
  for (const f of filters) {
    if (f.name) where.text('o.name', f.name);
    if (f.domain) where.text('o.primary_domain', f.domain);
  }
  return listPage<OrgRow>(
    db,
    {
      select: ORG_COLUMNS,
      from: 'orgs o',
      where,
      orderBy: ['lower(o.name)', 'o.id'],
    },
    page,
  );
}
