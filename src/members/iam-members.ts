// AddIAMMember (compat.md §1): instance roles for a user of any org. Shared by the admin API and the CLI's
// `admin create`, which joins it to the user's creation in one transaction.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { alreadyExists, invalidArgument } from '../platform/errors.ts';
import { insertNewMembership } from './queries.ts';
import { isInstanceRole } from './roles.ts';

export function checkInstanceRoles(roles: readonly string[]): void {
  if (!roles.length)
    throw invalidArgument('invalid AddIAMMemberRequest.Roles: value must contain at least 1 item(s)', 'IAM-4m0fS');
  const unknown = roles.find((r) => !isInstanceRole(r));
  if (unknown !== undefined) throw invalidArgument(`Role "${unknown}" is not an instance role`, 'IAM-4m9Fs');
}

export async function createIamMember(
  tx: Queryable,
  instanceId: string,
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<WrittenEvent> {
  const event = await appendEvent(tx, {
    aggregateType: 'instance',
    aggregateId: instanceId,
    eventType: 'instance.member.added',
    payload: { userId, roles },
    resourceOwner: instanceId,
    creator,
  });
  if (
    !(await insertNewMembership(tx, {
      userId,
      resourceType: 'instance',
      resourceId: instanceId,
      roles: [...new Set(roles)],
    }))
  ) {
    throw alreadyExists('Member already exists', 'IAM-sdgQ4');
  }
  return event;
}

export async function addIamMember(
  db: Db,
  instanceId: string,
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<Details> {
  checkInstanceRoles(roles);
  return createdDetails(await db.tx((tx) => createIamMember(tx, instanceId, userId, roles, creator)));
}
