// One user's memberships (ListUserMemberships, the console's user page): the roles the user holds on the instance, on
// the org in context and on that org's projects. As in ZITADEL, only memberships whose resource belongs to the instance
// or to the org in context are listed, so an org's owner never learns where else the user is a member; a user of
// another org is not found.
import type { Db } from '../platform/db.ts';
import { Conditions, creationOrder, listPage, type ListResult, type Page } from '../platform/search.ts';
import { getOrgUser, type UserRef } from '../users/service.ts';
import type { ResourceType } from './queries.ts';

/** The narrowing queries of zitadel.user.v1.MembershipQuery; `none` matches nothing (a project grant's
 *  membership, which Gatehouse does not have). */
export type UserMembershipFilter = { field: 'instance' } | { field: 'org' | 'project'; id: string } | { field: 'none' };

export interface UserMembershipRow {
  resource_type: ResourceType;
  resource_id: string;
  roles: string[];
  created_at: Date;
  changed_at: Date;
  sequence: string;
  /** The org's or project's name; for the instance the default org's, as the login pages name the instance. */
  display_name: string;
  /** The instance id for an instance membership, else the org the resource belongs to. */
  resource_owner: string;
}

export async function listUserMemberships(
  db: Db,
  ref: UserRef,
  filters: readonly UserMembershipFilter[],
  page: Page,
): Promise<ListResult<UserMembershipRow>> {
  await getOrgUser(db, ref);
  const where = new Conditions().add('m.user_id = ?', ref.userId);
  const org = where.param(ref.orgId);
  where.add(
    `(m.resource_type = 'instance' OR (m.resource_type = 'org' AND m.resource_id = ${org})
      OR (m.resource_type = 'project' AND p.org_id = ${org}))`,
  );
  for (const f of filters) {
    if (f.field === 'none') where.add('false');
    else if (f.field === 'instance') where.add(`m.resource_type = 'instance'`);
    else where.add(`m.resource_type = '${f.field}'`).add('m.resource_id = ?', f.id);
  }
  return listPage<UserMembershipRow>(
    db,
    {
      select: `m.resource_type, m.resource_id, m.roles, m.created_at, m.changed_at, m.sequence,
        coalesce(o.name, p.name, io.name, '') AS display_name, coalesce(o.id, p.org_id, i.id) AS resource_owner`,
      from: `memberships m
        LEFT JOIN orgs o ON m.resource_type = 'org' AND o.id = m.resource_id
        LEFT JOIN projects p ON m.resource_type = 'project' AND p.id = m.resource_id
        LEFT JOIN instance i ON m.resource_type = 'instance' AND i.id = m.resource_id
        LEFT JOIN orgs io ON io.id = i.default_org_id`,
      where,
      orderBy: ['m.created_at', 'm.resource_type', 'm.resource_id'],
    },
    creationOrder(page),
  );
}
