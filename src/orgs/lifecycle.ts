// An organization's life after SetUpOrg: admin ListOrgs, UpdateOrg, DeactivateOrg / ReactivateOrg and RemoveOrg. A
// deactivated org's users cannot sign in and their tokens end at once; a removed org takes everything it owns. The
// instance's default org, where self-registered users and the first-party apps live, stays.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, notFound } from '../platform/errors.ts';
import { name200, parseInput } from '../platform/input.ts';
import {
  Conditions,
  creationOrder,
  listPage,
  type ListResult,
  type Page,
  type TextFilter,
} from '../platform/search.ts';
import { keepAnIamOwner } from '../members/service.ts';
import { endSessionsOfOrgUsers } from '../users/state.ts';
import { z } from 'zod';
import { deleteOrgAndOwned, lockOrg, ORG_COLUMNS, updateOrgColumns, type OrgRow } from './queries.ts';

export type OrgFilter =
  | { field: 'name' | 'domain'; text: TextFilter }
  | { field: 'state'; state: OrgRow['state'] }
  | { field: 'id'; id: string };

/** Every org of the instance (IAM_OWNER), by name or in the order they were set up. */
export function listOrgs(
  db: Db,
  filters: readonly OrgFilter[],
  page: Page,
  sortByName: boolean,
): Promise<ListResult<OrgRow>> {
  const where = new Conditions();
  for (const f of filters) {
    switch (f.field) {
      case 'name':
        where.text('o.name', f.text);
        break;
      case 'domain':
        where.add(`EXISTS (SELECT 1 FROM org_domains d WHERE d.org_id = o.id AND ${where.match('d.domain', f.text)})`);
        break;
      case 'state':
        where.add('o.state = ?', f.state);
        break;
      case 'id':
        where.add('o.id = ?', f.id);
    }
  }
  return listPage<OrgRow>(
    db,
    {
      select: ORG_COLUMNS,
      from: 'orgs o',
      where,
      orderBy: sortByName ? ['lower(o.name)', 'o.id'] : ['o.id'],
    },
    sortByName ? page : creationOrder(page),
  );
}

const updateOrgSchema = z.object({ name: name200 });

/** The org in context, locked, as the change sees it; the default org when `protect` is set is refused. */
async function changeOrg(
  db: Db,
  orgId: string,
  defaultOrgId: string | undefined,
  creator: string,
  change: (org: OrgRow) => {
    eventType: EventType<'org'>;
    payload?: Record<string, unknown>;
    state?: OrgRow['state'];
    name?: string;
  },
  after?: (tx: Queryable) => Promise<unknown>,
): Promise<Details> {
  return db.tx(async (tx) => {
    const org = await lockOrg(tx, orgId);
    if (!org) throw notFound('Organisation not found', 'QUERY-iTTGJ');
    if (orgId === defaultOrgId)
      // ZITADEL's ID of this refusal in RemoveOrg (command/org.go prepareRemoveOrg); it refuses no deactivation, we do
      throw failedPrecondition('The default organisation cannot be deactivated or removed', 'COMMA-wG9p1');
    const c = change(org);
    const event = await appendEvent(tx, {
      aggregateType: 'org',
      aggregateId: orgId,
      eventType: c.eventType,
      payload: c.payload,
      resourceOwner: orgId,
      creator,
    });
    const columns = { ...(c.name === undefined ? {} : { name: c.name }), ...(c.state ? { state: c.state } : {}) };
    if (Object.keys(columns).length) await updateOrgColumns(tx, orgId, columns, event.sequence, event.createdAt);
    await after?.(tx);
    return changedDetails(event);
  });
}

/** A new name (orgs_name_unique: 409 when another org has it). The org's domains stay as they are. */
export function updateOrg(db: Db, orgId: string, name: string, creator: string): Promise<Details> {
  const input = parseInput(updateOrgSchema, { name }, 'UpdateOrgRequest', 'ORG-Name');
  return changeOrg(db, orgId, undefined, creator, (org) => {
    if (org.name === input.name) throw failedPrecondition('Organisation name not changed', 'ORG-4VCJk');
    return { eventType: EVENT.org.changed, payload: input, name: input.name };
  });
}

export function setOrgActive(
  db: Db,
  orgId: string,
  active: boolean,
  defaultOrgId: string,
  creator: string,
): Promise<Details> {
  return changeOrg(
    db,
    orgId,
    active ? undefined : defaultOrgId,
    creator,
    (org) => {
      // command/org.go ReactivateOrg, DeactivateOrg
      if (active && org.state === 'active') throw failedPrecondition('Organisation is already active', 'EVENT-bfnrh');
      if (!active && org.state !== 'active')
        throw failedPrecondition('Organisation is already deactivated', 'EVENT-Dbs2g');
      return {
        eventType: active ? EVENT.org.reactivated : EVENT.org.deactivated,
        state: active ? 'active' : 'inactive',
      };
    },
    active ? undefined : (tx) => endSessionsOfOrgUsers(tx, orgId),
  );
}

export function removeOrg(db: Db, orgId: string, defaultOrgId: string, creator: string): Promise<Details> {
  return changeOrg(
    db,
    orgId,
    defaultOrgId,
    creator,
    (org) => ({ eventType: EVENT.org.removed, payload: { name: org.name } }),
    async (tx) => {
      await keepAnIamOwner(tx, (owner) => owner.org_id === orgId);
      await endSessionsOfOrgUsers(tx, orgId);
      await deleteOrgAndOwned(tx, orgId);
    },
  );
}
