// `gatehouse admin create`: another instance administrator, a human user with IAM_OWNER, created with its
// membership in one transaction (no user without the role it was created for).
import type { Db } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { createHuman } from '../users/human-service.ts';
import { hashNewHuman, IMPORT_REQUEST, type ImportHumanInput } from '../passwords/new-human.ts';
import { hashPassword } from '../users/passwords.ts';
import { createMember } from '../members/service.ts';
import { IAM_OWNER } from '../members/roles.ts';

export async function createAdmin(
  db: Db,
  instanceId: string,
  input: ImportHumanInput,
  creator: string,
): Promise<{ userId: string; details: Details }> {
  const { password, ...human } = input;
  const passwordHash = await hashNewHuman(db, input, IMPORT_REQUEST, hashPassword);
  return db.tx(async (tx) => {
    const { userId } = await createHuman(tx, { ...human, passwordHash }, creator);
    return {
      userId,
      details: createdDetails(
        await createMember(tx, { type: 'instance', id: instanceId }, userId, [IAM_OWNER], creator),
      ),
    };
  });
}
