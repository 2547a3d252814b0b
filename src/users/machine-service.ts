// Machine users (service accounts, as in ZITADEL): client_credentials with a generated secret (client_id = user
// name) and the JWT-profile grant with registered public keys. Each change is one transaction with its event.
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { generateSecret } from '../platform/secrets.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { failedPrecondition, invalidArgument, notFound } from '../platform/errors.ts';
import { Conditions, creationOrder, listPage, type ListResult, type Page } from '../platform/search.ts';
import { name200, parseInput } from '../platform/input.ts';
import { getOrgUser, type UserRef } from './service.ts';
import {
  deleteMachineKey,
  findActiveMachineWithKeys,
  insertMachine,
  updateMachineSecret,
  type UserRow,
} from './queries.ts';
import { addMachineKey, type ServiceAccountKeyFile } from './machine-keys.ts';
import { checkUserName } from './user-name.ts';

const addMachineUserSchema = z.object({
  orgId: z.string().min(1),
  userName: name200,
  name: name200,
  description: z.string().max(500).default(''),
  accessTokenType: z.enum(['opaque', 'jwt']).default('opaque'),
});

export async function addMachineUser(
  db: Db,
  input: z.input<typeof addMachineUserSchema>,
  creator: string,
): Promise<{ userId: string; details: Details }> {
  const m = parseInput(addMachineUserSchema, input, 'AddMachineUserRequest', 'USER-Inv4l1d');
  await checkUserName(db, m.userName, 'AddMachineUserRequest.UserName');
  return db.tx(async (tx) => {
    const { userId, event } = await createMachine(tx, m, creator);
    return { userId, details: createdDetails(event) };
  });
}

export type NewMachineUser = z.output<typeof addMachineUserSchema>;

/** Inserts the machine user and its event in the caller's transaction: AddMachineUser, the CLI, and the first
 *  start's admin service account (instance/bootstrap.ts), all with one payload shape. */
export async function createMachine(
  tx: Queryable,
  m: NewMachineUser,
  creator: string,
): Promise<{ userId: string; event: WrittenEvent }> {
  const userId = newId();
  const { orgId, ...fields } = m;
  const event = await appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: userId,
    eventType: EVENT.user.machineAdded,
    payload: fields,
    resourceOwner: orgId,
    creator,
  });
  await insertMachine(tx, { id: userId, orgId, ...fields, sequence: event.sequence });
  return { userId, event };
}

/** A new client secret for client_credentials; the previous one stops working. Returned once. */
export async function generateMachineSecret(
  db: Db,
  secrets: SecretBox,
  ref: UserRef,
  creator: string,
): Promise<{ clientId: string; clientSecret: string; details: Details }> {
  const user = await getMachine(db, ref);
  const userId = user.id;
  const clientSecret = generateSecret();
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: EVENT.user.machineSecretSet,
      resourceOwner: user.org_id,
      creator,
    });
    await updateMachineSecret(tx, userId, secrets.hashSecret(clientSecret), event.sequence, event.createdAt);
    return { clientId: user.user_name, clientSecret, details: changedDetails(event) };
  });
}

/** A key pair for the JWT-profile grant; the key file (with the private key) is returned once. */
export async function addMachineUserKey(
  db: Db,
  ref: UserRef,
  expiresAt: Date | undefined,
  creator: string,
): Promise<{ keyId: string; keyFile: ServiceAccountKeyFile; details: Details }> {
  const user = await getMachine(db, ref);
  const userId = user.id;
  if (expiresAt && !(expiresAt.getTime() > Date.now()))
    throw invalidArgument('invalid AddMachineKeyRequest.ExpirationDate: must be in the future', 'USER-Inv4l1d');
  return db.tx(async (tx) => {
    const keyFile = await addMachineKey(tx, userId, expiresAt);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: EVENT.user.machineKeyAdded,
      payload: { keyId: keyFile.keyId, expiresAt: keyFile.expirationDate },
      resourceOwner: user.org_id,
      creator,
    });
    return { keyId: keyFile.keyId, keyFile, details: createdDetails(event) };
  });
}

/** Ends client_credentials for the machine user: the secret's hash goes, so the next grant fails on every
 *  process (the token write checks the stored hash, oidc/queries.ts INSERT_TOKENS). */
export async function removeMachineSecret(db: Db, ref: UserRef, creator: string): Promise<Details> {
  const user = await getMachine(db, ref);
  // ZITADEL's RemoveMachineSecret (command/user_machine_secret.go)
  if (!user.secret_hash) throw failedPrecondition('The user has no secret', 'COMMAND-coi82n');
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.machineSecretRemoved,
      resourceOwner: user.org_id,
      creator,
    });
    await updateMachineSecret(tx, user.id, null, event.sequence, event.createdAt);
    return changedDetails(event);
  });
}

/** Removes a key: assertions signed with it fail on the next grant (INSERT_TOKENS checks the key still exists). */
export async function removeMachineUserKey(db: Db, ref: UserRef, keyId: string, creator: string): Promise<Details> {
  const user = await getMachine(db, ref);
  return db.tx(async (tx) => {
    if (!(await deleteMachineKey(tx, user.id, keyId))) throw notFound('Key not found', 'COMMAND-4m77G');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.machineKeyRemoved,
      payload: { keyId },
      resourceOwner: user.org_id,
      creator,
    });
    return changedDetails(event);
  });
}

export async function listMachineUserKeys(
  db: Db,
  ref: UserRef,
  page: Page,
): Promise<ListResult<{ id: string; expires_at: Date; created_at: Date }>> {
  const user = await getMachine(db, ref);
  return listPage(
    db,
    {
      select: 'id, expires_at, created_at',
      from: 'machine_keys',
      where: new Conditions().add('user_id = ?', user.id),
      orderBy: ['created_at', 'id'],
    },
    creationOrder(page),
  );
}

/** A machine user of the org given (a user of another org is not found, as in getOrgUser). */
async function getMachine(db: Db, ref: UserRef): Promise<UserRow> {
  const user = await getOrgUser(db, ref);
  if (user.type !== 'machine') throw notFound('User not found', 'USER-MmVx9');
  return user;
}

/** The OIDC client views of a machine user: by user ID (JWT profile) or by user name (client_credentials). */
export function findActiveMachine(db: Db, by: { id: string } | { userName: string }) {
  return findActiveMachineWithKeys(db, by);
}
