// Organizations' whole life: the org in context changes, deactivates, reactivates and removes itself
// (ManagementService, ORG_OWNER); the instance's admin lists and removes any org (AdminService, IAM_OWNER); who
// lends projects finds an org by its domain (GetOrgByDomainGlobal).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { OrgFieldName, OrgState, type OrgQuery } from '@zitadel/proto/zitadel/org_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { listOrgs, removeOrg, setOrgActive, updateOrg, type OrgFilter } from '../../orgs/lifecycle.ts';
import { getOrgByDomain } from '../../orgs/service.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { detailsMessage, orgMessage } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { iamOwner, operation, orgOwner, projectPermission, type Operation } from '../operation.ts';

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

export function orgOperations({ db, instance }: ManagementDeps): Operation[] {
  const active = (method: (typeof M)['deactivateOrg' | 'reactivateOrg'], value: boolean) =>
    operation({
      // the two methods share one request and one response shape
      method: method as (typeof M)['deactivateOrg'],
      permission: orgOwner,
      async handle(caller) {
        const details = await setOrgActive(db, caller.orgId, value, instance.default_org_id, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    });
  return [
    operation({
      method: M.updateOrg,
      permission: orgOwner,
      async handle(caller, req) {
        return { details: detailsMessage(await updateOrg(db, caller.orgId, req.name, caller.principal.userId)) };
      },
    }),
    active(M.deactivateOrg, false),
    active(M.reactivateOrg, true),
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
