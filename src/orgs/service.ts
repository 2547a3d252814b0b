// The reads of an organization: by its domain (GetOrgByDomainGlobal) and by its ID. Creating one with its first
// user is instance/set-up-org.ts (SetUpOrg) and create.ts (the transaction both it and the first start share).
import type { Queryable } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { findOrgByDomain, findOrgById, type OrgRow } from './queries.ts';

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
