// Members of an org, a project or the instance: add, change the roles of, remove and list, each change one transaction
// with its `<resource>.member.*` event. The last IAM_OWNER cannot be removed or demoted.
import type { Db } from '../platform/db.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { failedPrecondition, invalidArgument, notFound, precondition } from '../platform/errors.ts';
import {
  Conditions,
  creationOrder,
  listPage,
  type ListResult,
  type Page,
  type TextFilter,
} from '../platform/search.ts';
import { deleteMembership, lockMembership, updateMembershipRoles, type ResourceType } from './queries.ts';
import { getUserById } from '../users/service.ts';
import { MEMBER_ERROR_IDS } from './errors.ts';
import { INSTANCE_ROLES, ORG_ROLES, PROJECT_ROLES } from './roles.ts';
import { createMember, keepAnIamOwner, type MemberResource } from './service.ts';

/** The roles a member may hold on each kind of resource (ListOrgMemberRoles and friends). */
export const MEMBER_ROLES: Record<ResourceType, readonly string[]> = {
  instance: INSTANCE_ROLES,
  org: ORG_ROLES,
  project: PROJECT_ROLES,
};

/** `request`: the request message's name, e.g. "AddOrgMemberRequest", for the error that names the field. */
export function checkMemberRoles(type: ResourceType, roles: readonly string[], request: string): void {
  if (!roles.length)
    throw invalidArgument(`invalid ${request}.Roles: value must contain at least 1 item(s)`, 'IAM-4m0fS');
  const unknown = roles.find((r) => !MEMBER_ROLES[type].includes(r));
  if (unknown !== undefined) throw invalidArgument(`invalid ${request}.Roles: unknown role "${unknown}"`, 'IAM-4m9Fs');
}

const memberNotFound = (type: ResourceType) => notFound('Member not found', MEMBER_ERROR_IDS[type].notFound);

export async function addMember(
  db: Db,
  resource: MemberResource,
  userId: string,
  roles: readonly string[],
  creator: string,
  request: string,
): Promise<Details> {
  checkMemberRoles(resource.type, roles, request);
  return db.tx(async (tx) => {
    // a user of any org may be a member, as in ZITADEL (its ExistsUser check takes no resource owner)
    await precondition(getUserById(tx, userId), 'User could not be found', MEMBER_ERROR_IDS[resource.type].userMissing);
    return createdDetails(await createMember(tx, resource, userId, roles, creator));
  });
}

export async function updateMember(
  db: Db,
  resource: MemberResource,
  userId: string,
  roles: readonly string[],
  creator: string,
  request: string,
): Promise<Details> {
  checkMemberRoles(resource.type, roles, request);
  const wanted = [...new Set(roles)];
  return db.tx(async (tx) => {
    const member = await lockMembership(tx, resource, userId);
    if (!member) throw memberNotFound(resource.type);
    if (member.roles.length === wanted.length && wanted.every((r) => member.roles.includes(r)))
      throw failedPrecondition('Member roles not changed', MEMBER_ERROR_IDS[resource.type].unchanged);
    if (resource.type === 'instance' && !wanted.includes('IAM_OWNER')) await keepAnIamOwner(tx, userId);
    const event = await appendEvent(tx, {
      aggregateType: resource.type,
      aggregateId: resource.id,
      eventType: EVENT[resource.type].memberChanged,
      payload: { userId, roles: wanted },
      resourceOwner: resource.owner ?? resource.id,
      creator,
    });
    await updateMembershipRoles(tx, resource, userId, wanted, event.sequence);
    return changedDetails(event);
  });
}

export async function removeMember(
  db: Db,
  resource: MemberResource,
  userId: string,
  creator: string,
): Promise<Details> {
  return db.tx(async (tx) => {
    if (!(await lockMembership(tx, resource, userId))) throw memberNotFound(resource.type);
    if (resource.type === 'instance') await keepAnIamOwner(tx, userId);
    const event = await appendEvent(tx, {
      aggregateType: resource.type,
      aggregateId: resource.id,
      eventType: EVENT[resource.type].memberRemoved,
      payload: { userId },
      resourceOwner: resource.owner ?? resource.id,
      creator,
    });
    await deleteMembership(tx, resource, userId);
    return changedDetails(event);
  });
}

export type MemberFilter =
  | { field: 'userId'; userId: string }
  | { field: 'email' | 'firstName' | 'lastName'; text: TextFilter };

export interface MemberRow {
  user_id: string;
  roles: string[];
  created_at: Date;
  changed_at: Date;
  sequence: string;
  user_name: string;
  type: 'human' | 'machine';
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  display_name: string | null;
  machine_name: string | null;
  primary_domain: string;
}

const MEMBER_TEXT_COLUMNS = { email: 'u.email', firstName: 'u.first_name', lastName: 'u.last_name' };

/** The members of a resource, in the order they became members (memberships_resource_idx). */
export function listMembers(
  db: Db,
  resource: MemberResource,
  filters: readonly MemberFilter[],
  page: Page,
): Promise<ListResult<MemberRow>> {
  const where = new Conditions().add('m.resource_type = ?', resource.type).add('m.resource_id = ?', resource.id);
  for (const f of filters) {
    if (f.field === 'userId') where.add('m.user_id = ?', f.userId);
    else where.text(MEMBER_TEXT_COLUMNS[f.field], f.text);
  }
  return listPage<MemberRow>(
    db,
    {
      select: `m.user_id, m.roles, m.created_at, m.changed_at, m.sequence, u.user_name, u.type, u.email, u.first_name,
        u.last_name, u.display_name, u.machine_name, o.primary_domain`,
      from: 'memberships m JOIN users u ON u.id = m.user_id JOIN orgs o ON o.id = u.org_id',
      where,
      orderBy: ['m.created_at', 'm.user_id'],
    },
    creationOrder(page),
  );
}
