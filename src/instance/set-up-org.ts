// SetUpOrg, as ZITADEL's admin API has it: the org, its domain (given or generated), the first human user and that
// user's membership, in one transaction with their events. An instance administrator's call across orgs/, users/,
// members/ and passwords/ (the first human's password is checked and hashed before the transaction), so it sits
// above them all.
import type { Db } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { invalidArgument } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { hashPassword } from '../users/passwords.ts';
import { type HashFn, type HumanInput, type HumanRequest, hashNewHuman } from '../passwords/new-human.ts';
import { isOrgRole, ORG_OWNER } from '../members/roles.ts';
import { addOrgWithHuman } from '../orgs/create.ts';
import { generateOrgDomain } from '../orgs/domain-name.ts';

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

/** SetUpOrg's words for a refused user name or password (ZITADEL's). */
const SET_UP_ORG_REQUEST: HumanRequest = {
  userNameField: 'SetUpOrgRequest_Human.UserName',
  passwordError: (problem) => invalidArgument(`Password ${problem.text}`, problem.id),
};

export async function setUpOrg(
  db: Db,
  instanceDomain: string,
  input: SetUpOrgInput,
  creator: string,
  hash: HashFn = hashPassword,
): Promise<SetUpOrgResult> {
  const unknown = input.roles.find((r) => !isOrgRole(r));
  if (unknown !== undefined) throw invalidArgument(`Role "${unknown}" is not an organization role`, 'ORG-4m9Fs');
  const orgId = newId();
  const domain = input.org.domain || generateOrgDomain(input.org.name, instanceDomain, orgId);
  const { password, ...human } = input.human;
  const passwordHash = await hashNewHuman(db, input.human, { ...SET_UP_ORG_REQUEST, newOrgDomain: domain }, hash);
  const created = await db.tx((tx) =>
    addOrgWithHuman(
      tx,
      {
        org: { id: orgId, name: input.org.name, domain },
        human: { ...human, passwordHash },
        roles: input.roles.length ? input.roles : [ORG_OWNER],
      },
      creator,
    ),
  );
  return { orgId: created.orgId, userId: created.userId, details: createdDetails(created.event) };
}
