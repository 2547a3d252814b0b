// First start: the instance, its first organization, the admin user, and optionally an admin service account whose key
// file is written for the operator. Runs under a transaction-scoped advisory lock, so instances starting together
// create all of it exactly once; later starts change nothing.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db, Queryable } from '../platform/db.ts';
import { newId } from '../platform/ids.ts';
import { addOrgWithHuman } from '../orgs/create.ts';
import { generateOrgDomain } from '../orgs/domain-name.ts';
import { hashPassword } from '../users/passwords.ts';
import { createMachine } from '../users/machine-service.ts';
import { addMachineKey } from '../users/machine-keys.ts';
import { createMember } from '../members/service.ts';
import { IAM_OWNER, ORG_OWNER } from '../members/roles.ts';
import { findInstance, insertInstance, type InstanceRow } from './queries.ts';

const LOCK_KEY = 7_146_002; // "gatehouse bootstrap"
export const FIRST_ORG_NAME = 'Gatehouse';
const SYSTEM = 'SYSTEM';
/** The generated admin password's file, in GATEHOUSE_DATA_DIR (with PostgreSQL too). */
export const ADMIN_PASSWORD_FILE = 'admin-password.txt';

export interface Bootstrapped {
  instance: InstanceRow;
  /** Where the generated admin password was written, when this start created the admin with one. */
  adminPasswordFile: string | undefined;
}

export async function bootstrap(db: Db, config: Config, log: Logger): Promise<Bootstrapped> {
  const existing = await findInstance(db);
  if (existing) return { instance: existing, adminPasswordFile: undefined };
  // Hashing is slow; do it before taking the lock. An unused hash (another instance won) costs nothing else.
  const generatedPassword = config.admin.password ? undefined : randomBytes(18).toString('base64url');
  const passwordHash = await hashPassword(config.admin.password ?? generatedPassword!);

  const passwordFile = join(config.dataDir, ADMIN_PASSWORD_FILE);
  const created = await db.tx(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    if (await findInstance(tx)) return undefined;
    const instance = await createInstance(tx, config, passwordHash);
    // Written inside the transaction, as the key file: if the write fails, nothing is created and the next start
    // tries again; only the one start that creates the admin writes it.
    if (generatedPassword) writeOwnerOnly(passwordFile, `${generatedPassword}\n`);
    return instance;
  });
  if (!created) return { instance: (await findInstance(db))!, adminPasswordFile: undefined };
  if (generatedPassword) {
    // The operator's only way to the first login, kept out of the log: logs are shipped and kept.
    log.warn(
      { userName: config.admin.userName, file: passwordFile },
      `created the admin user with a generated password, written to ${passwordFile}; sign in, change it and delete ` +
        `the file`,
    );
  }
  log.info({ instanceId: created.id, keyFile: config.admin.keyFile }, 'instance created');
  return { instance: created, adminPasswordFile: generatedPassword ? passwordFile : undefined };
}

async function createInstance(tx: Queryable, config: Config, passwordHash: string): Promise<InstanceRow> {
  const instanceId = newId();
  const { orgId, userId: adminId } = await addOrgWithHuman(
    tx,
    {
      org: { name: FIRST_ORG_NAME, domain: generateOrgDomain(FIRST_ORG_NAME, config.instanceDomain, '') },
      human: {
        userName: config.admin.userName,
        profile: {
          firstName: 'Gatehouse',
          lastName: 'Admin',
          nickName: '',
          displayName: 'Gatehouse Admin',
          preferredLanguage: 'en',
          gender: 'GENDER_UNSPECIFIED',
        },
        email: `${config.admin.userName}@${config.instanceDomain}`,
        emailVerified: true,
        phone: null,
        phoneVerified: false,
        passwordHash,
      },
      roles: [ORG_OWNER],
    },
    SYSTEM,
  );
  await insertInstance(tx, { id: instanceId, domain: config.instanceDomain, defaultOrgId: orgId });
  await createMember(tx, { type: 'instance', id: instanceId }, adminId, [IAM_OWNER], SYSTEM);

  if (config.admin.keyFile) {
    const { userId: machineId } = await createMachine(
      tx,
      {
        orgId,
        userName: `${config.admin.userName}-sa`,
        name: 'Gatehouse admin service account',
        description: 'Created at first start for automation',
        accessTokenType: 'opaque',
      },
      SYSTEM,
    );
    await createMember(tx, { type: 'instance', id: instanceId }, machineId, [IAM_OWNER], SYSTEM);
    const keyFile = await addMachineKey(tx, machineId);
    // Written inside the transaction: if the write fails, nothing is created and the next start tries again.
    writeFileSync(config.admin.keyFile, JSON.stringify(keyFile, null, 2), { mode: 0o600 });
  }
  return (await findInstance(tx))!;
}

/** A new file only its owner can read: one left from an earlier attempt is replaced, never reused with its mode. */
function writeOwnerOnly(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  rmSync(file, { force: true });
  writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
}
