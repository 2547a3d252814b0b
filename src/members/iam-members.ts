// AddIAMMember (compat.md §1): instance roles for a user of any org, checked here and granted by createMember
// (service.ts), which `admin create` joins to the user's creation in one transaction.
import type { Db } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { invalidArgument } from '../platform/errors.ts';
import { createMember } from './service.ts';
import { isInstanceRole } from './roles.ts';

export function checkInstanceRoles(roles: readonly string[]): void {
  if (!roles.length)
    throw invalidArgument('invalid AddIAMMemberRequest.Roles: value must contain at least 1 item(s)', 'IAM-4m0fS');
  const unknown = roles.find((r) => !isInstanceRole(r));
  if (unknown !== undefined) throw invalidArgument(`Role "${unknown}" is not an instance role`, 'IAM-4m9Fs');
}

export async function addIamMember(
  db: Db,
  instanceId: string,
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<Details> {
  checkInstanceRoles(roles);
  return createdDetails(
    await db.tx((tx) => createMember(tx, { type: 'instance', id: instanceId }, userId, roles, creator)),
  );
}
