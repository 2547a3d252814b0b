// SetUpOrg, as ZITADEL's admin API has it: the org, its domain (given or generated), the first human user and that
// user's membership, in one transaction with their events; plus the read that lets a client check the result.
import type { Db, Queryable } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { hashPassword } from '../users/passwords.ts';
import { type HashFn, type HumanInput, type HumanRequest, hashNewHuman } from '../users/human-service.ts';
import { isOrgRole, ORG_OWNER } from '../members/roles.ts';
import { addOrgWithHuman } from './create.ts';
import { generateOrgDomain } from './domain-name.ts';
import { findOrgByDomain, findOrgById, type OrgRow } from './queries.ts';

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

/** The org holding a domain (GetOrgByDomainGlobal: the granting of a project names the receiving org by it). */
export async function getOrgByDomain(db: Queryable, domain: string): Promise<OrgRow> {
  const org = await findOrgByDomain(db, domain);
  if (!org) throw notFound('Organisation not found', 'QUERY-iTTGJ');
  return org;
}

export async function getOrgById(db: Queryable, id: string): Promise<OrgRow> {
  const org = await findOrgById(db, id);
  if (!org) throw notFound('Organisation not found', 'QUERY-iTTGJ');
  return org;
}
