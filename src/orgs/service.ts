// SetUpOrg (compat.md §5): the org, its domain (given or generated), the first human user and that user's
// membership, in one transaction with their events; plus the read that lets a client check the result.
import type { Db } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../users/passwords.ts';
import type { HashFn, HumanInput } from '../users/import.ts';
import { checkUserName } from '../users/user-name.ts';
import { isOrgRole, ORG_OWNER } from '../members/roles.ts';
import { addOrgWithHuman } from './create.ts';
import { generateOrgDomain } from './domain-name.ts';
import { findOrgById, type OrgRow } from './queries.ts';

export interface SetUpOrgInput {
  org: { name: string; domain: string };
  human: HumanInput;
  roles: readonly string[];
}

export interface SetUpOrgResult {
  orgId: string;
  userId: string;
  details: Details;
}

export async function setUpOrg(
  db: Db,
  instanceDomain: string,
  input: SetUpOrgInput,
  creator: string,
  hash: HashFn = hashPassword,
): Promise<SetUpOrgResult> {
  const unknown = input.roles.find((r) => !isOrgRole(r));
  if (unknown !== undefined) throw invalidArgument(`Role "${unknown}" is not an organization role`, 'ORG-4m9Fs');
  const { password } = input.human;
  const length = [...password].length;
  if (password && (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH)) {
    throw invalidArgument(
      `Password must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`,
      'COMMA-HuJf6',
    );
  }
  const orgId = newId();
  const domain = input.org.domain || generateOrgDomain(input.org.name, instanceDomain, orgId);
  const { userName, profile, email, emailVerified, phone, phoneVerified } = input.human;
  await checkUserName(db, userName, 'SetUpOrgRequest_Human.UserName', domain);
  // Hashing is slow (argon2id), so it happens before the transaction holds any locks.
  const passwordHash = password ? await hash(password) : null;
  const created = await db.tx((tx) =>
    addOrgWithHuman(
      tx,
      {
        org: { id: orgId, name: input.org.name, domain },
        human: {
          userName,
          email,
          emailVerified,
          phone,
          phoneVerified,
          passwordHash,
          // interface.md: "when not set the service computes first name, space, last name"
          profile: { ...profile, displayName: profile.displayName || `${profile.firstName} ${profile.lastName}` },
        },
        roles: input.roles.length ? input.roles : [ORG_OWNER],
      },
      creator,
    ),
  );
  return { orgId: created.orgId, userId: created.userId, details: createdDetails(created.event) };
}

export async function getOrgById(db: Db, id: string): Promise<OrgRow> {
  const org = await findOrgById(db, id);
  if (!org) throw notFound('Organisation not found', 'QUERY-iTTGJ');
  return org;
}
