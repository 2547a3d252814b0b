// Instance administrators made from the command line, each created with its membership in one transaction (no user
// without the role it was created for): a human (`gatehouse admin create`), and the machine user whose tokens
// `gatehouse admin token` prints.
import type { Db } from '../platform/db.ts';
import { AppError, Code, failedPrecondition } from '../platform/errors.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { createHuman } from '../users/human-service.ts';
import { hashNewHuman, IMPORT_REQUEST, type ImportHumanInput } from '../passwords/new-human.ts';
import { hashPassword } from '../users/passwords.ts';
import { createMachine, findActiveMachine } from '../users/machine-service.ts';
import { userNameTaken, type UserRow } from '../users/queries.ts';
import { createMember, rolesOf } from '../members/service.ts';
import { IAM_OWNER } from '../members/roles.ts';
import type { InstanceRow } from './queries.ts';

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

/** The machine user whose access tokens `gatehouse admin token` prints, in the instance's first org. */
export const CLI_ADMIN_USER_NAME = 'gatehouse-cli';

/**
 * The CLI's instance administrator: an active machine user with opaque tokens and IAM_OWNER, made with its membership
 * in one transaction on first use. A user of that name that is not one (a human, locked, its role taken away) is
 * refused, never changed back: someone changed it on purpose.
 */
export async function cliAdmin(db: Db, instance: InstanceRow, creator: string): Promise<UserRow> {
  const find = () => findActiveMachine(db, { userName: CLI_ADMIN_USER_NAME });
  let user = await find();
  if (!user && !(await userNameTaken(db, CLI_ADMIN_USER_NAME))) {
    await db
      .tx(async (tx) => {
        const { userId } = await createMachine(
          tx,
          {
            orgId: instance.default_org_id,
            userName: CLI_ADMIN_USER_NAME,
            name: 'Gatehouse CLI',
            description: 'The administrator whose tokens "gatehouse admin token" prints',
            accessTokenType: 'opaque',
          },
          creator,
        );
        await createMember(tx, { type: 'instance', id: instance.id }, userId, [IAM_OWNER], creator);
      })
      .catch((error: unknown) => {
        // made meanwhile by another command
        if (!(error instanceof AppError && error.code === Code.AlreadyExists)) throw error;
      });
    user = await find();
  }
  if (user?.access_token_type !== 'opaque' || !(await rolesOf(db, user.id)).instance.has(IAM_OWNER))
    throw failedPrecondition(
      `the user ${CLI_ADMIN_USER_NAME} exists but is not an active machine user with opaque tokens and the role ` +
        `IAM_OWNER: make it one again, or remove it to have it made anew`,
    );
  return user;
}
