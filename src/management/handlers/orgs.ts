// Organizations' whole life: the org in context reads, changes, deactivates, reactivates and removes itself
// (ManagementService, ORG_OWNER); the instance's admin sets up, reads, lists and removes any org (AdminService,
// IAM_OWNER); who lends projects finds an org by its domain (GetOrgByDomainGlobal).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { OrgFieldName, OrgState, type OrgQuery } from '@zitadel/proto/zitadel/org_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { listOrgs, removeOrg, setOrgActive, updateOrg, type OrgFilter } from '../../orgs/lifecycle.ts';
import { getOrgByDomain, getOrgById } from '../../orgs/service.ts';
import { setUpOrg } from '../../instance/set-up-org.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { detailsMessage, humanInput, orgMessage } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { callerHash, iamOwner, operation, orgOwner, projectPermission, type Operation } from '../operation.ts';
import { activationOperations } from './activation.ts';

const M = ManagementService.method;

function orgFilter(query: OrgQuery, i: number): OrgFilter {
  const q = query.query;
  switch (q.case) {
    case 'nameQuery':
      return { field: 'name', text: textFilter(q.value.name, q.value.method) };
    case 'domainQuery':
      return { field: 'domain', text: textFilter(q.value.domain, q.value.method) };
    case 'stateQuery':
      return { field: 'state', state: q.value.state === OrgState.INACTIVE ? 'inactive' : 'active' };
    case 'idQuery':
      return { field: 'id', id: q.value.id };
    default:
      throw invalidArgument(`invalid ListOrgsRequest.Queries[${i}]: an empty query is not supported`);
  }
}

export function orgOperations({ db, instance, hashing }: ManagementDeps): Operation[] {
  return [
    operation({
      method: M.getMyOrg,
      permission: orgOwner,
      async handle(caller) {
        return { org: orgMessage(await getOrgById(db, caller.orgId)) };
      },
    }),
    operation({
      method: M.updateOrg,
      permission: orgOwner,
      async handle(caller, req) {
        return { details: detailsMessage(await updateOrg(db, caller.orgId, req.name, caller.principal.userId)) };
      },
    }),
    ...activationOperations(
      { deactivate: M.deactivateOrg, reactivate: M.reactivateOrg },
      orgOwner,
      (caller, _, state) =>
        setOrgActive(db, caller.orgId, state === 'active', instance.default_org_id, caller.principal.userId),
    ),
    operation({
      method: M.removeOrg,
      permission: orgOwner,
      async handle(caller) {
        const details = await removeOrg(db, caller.orgId, instance.default_org_id, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.getOrgByDomainGlobal,
      // ZITADEL's org.global.read, held by those who lend projects to other orgs (ORG_OWNER, PROJECT_OWNER,
      // IAM_OWNER): they name the receiving org by its domain (the console's "Grant project")
      permission: projectPermission('write'),
      async handle(_caller, req) {
        return { org: orgMessage(await getOrgByDomain(db, req.domain)) };
      },
    }),
    operation({
      method: AdminService.method.setUpOrg,
      permission: iamOwner,
      async handle(caller, req) {
        // validate.rules make the oneof `user` required, so only the human case reaches this point
        const result = await setUpOrg(
          db,
          instance.domain,
          {
            org: { name: req.org!.name, domain: req.org!.domain },
            human: humanInput(req.user.value!),
            roles: req.roles,
          },
          caller.principal.userId,
          callerHash(hashing, caller),
        );
        return { details: detailsMessage(result.details), orgId: result.orgId, userId: result.userId };
      },
    }),
    operation({
      method: AdminService.method.getOrgByID,
      permission: iamOwner,
      async handle(_caller, req) {
        return { org: orgMessage(await getOrgById(db, req.id)) };
      },
    }),
    operation({
      method: AdminService.method.listOrgs,
      permission: iamOwner,
      async handle(_caller, req) {
        const page = pageOf(req.query, 'ListOrgsRequest');
        const byName = req.sortingColumn === OrgFieldName.NAME;
        const result = await listOrgs(db, req.queries.map(orgFilter), page, byName);
        return {
          details: listDetailsMessage(result),
          sortingColumn: req.sortingColumn,
          result: result.rows.map(orgMessage),
        };
      },
    }),
    operation({
      method: AdminService.method.removeOrg,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await removeOrg(db, req.orgId, instance.default_org_id, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
