// ListUserGrants (by user, project, role key, user name, org of the grant) and ListMyUserGrants (issue 21): one page
// of grants with the user, org and project columns their messages show.
import type { Db } from '../platform/db.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import { GRANT_COLUMNS, GRANT_TABLES, type UserGrantRow } from './queries.ts';

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
