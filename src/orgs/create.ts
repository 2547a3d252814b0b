// Creating an organization with its first human user and that user's membership, in the caller's transaction: shared by
// the first start (instance/bootstrap.ts) and SetUpOrg (one transaction for all of it, as in ZITADEL).
import type { Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { newId } from '../platform/ids.ts';
import { createHuman, type NewHumanUser } from '../users/human-service.ts';
import { createMember } from '../members/service.ts';
import { insertOrg, insertOrgDomain } from './queries.ts';

export interface NewOrgWithHuman {
  /** id: when the caller needs it before the insert (e.g. for a generated domain). */
  org: { id?: string; name: string; domain: string };
  human: Omit<NewHumanUser, 'id' | 'orgId'>;
  roles: readonly string[];
}

export interface CreatedOrg {
  orgId: string;
  userId: string;
  event: WrittenEvent;
}

export async function addOrgWithHuman(tx: Queryable, input: NewOrgWithHuman, creator: string): Promise<CreatedOrg> {
  const orgId = input.org.id ?? newId();
  const orgAdded = await appendEvent(tx, {
    aggregateType: 'org',
    aggregateId: orgId,
    eventType: EVENT.org.added,
    payload: { name: input.org.name },
    resourceOwner: orgId,
    creator,
  });
  await insertOrg(tx, {
    id: orgId,
    name: input.org.name,
    primaryDomain: input.org.domain,
    sequence: orgAdded.sequence,
  });
  await appendEvent(tx, {
    aggregateType: 'org',
    aggregateId: orgId,
    eventType: EVENT.org.domainAdded,
    payload: { domain: input.org.domain, primary: true },
    resourceOwner: orgId,
    creator,
  });
  await insertOrgDomain(tx, { orgId, domain: input.org.domain, isPrimary: true, isVerified: true });
  const { userId } = await createHuman(tx, { orgId, ...input.human }, creator);
  const memberAdded = await createMember(tx, { type: 'org', id: orgId }, userId, input.roles, creator);
  return { orgId, userId, event: memberAdded };
}
