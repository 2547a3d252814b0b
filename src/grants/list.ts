// ListUserGrants (by user, project, role key, user name, org of the grant) and ListMyUserGrants (issue 21): one page
// of grants with the user, org and project columns their messages show.
import type { Db } from '../platform/db.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import { GRANT_COLUMNS, GRANT_TABLES, type UserGrantRow } from './queries.ts';
import type { OrgRow } from '../orgs/queries.ts';

export interface GrantFilters {
  userId?: string;
  projectId?: string;
  roleKey?: string;
  userName?: TextFilter;
}

function grantPage(db: Db, where: Conditions, page: Page): Promise<ListResult<UserGrantRow>> {
  return listPage<UserGrantRow>(
    db,
    { select: GRANT_COLUMNS, from: GRANT_TABLES, where, orderBy: ['g.created_at', 'g.id'] },
    page,
  );
}

/** The grants the org in context holds (user_grants_org_idx), narrowed by the filters given. */
export function listUserGrants(
  db: Db,
  orgId: string,
  filters: GrantFilters[],
  page: Page,
): Promise<ListResult<UserGrantRow>> {
  const where = new Conditions().add('g.org_id = ?', orgId);
  for (const f of filters) {
    if (f.userId !== undefined) where.add('g.user_id = ?', f.userId);
    if (f.projectId !== undefined) where.add('g.project_id = ?', f.projectId);
    if (f.roleKey !== undefined) where.add('? = ANY (g.role_keys)', f.roleKey);
    if (f.userName) where.text('u.user_name', f.userName);
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
      select: 'o.id, o.name, o.primary_domain, o.state, o.created_at, o.changed_at, o.sequence',
      from: 'orgs o',
      where,
      orderBy: ['lower(o.name)', 'o.id'],
    },
    page,
  );
}
