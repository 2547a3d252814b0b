// Project grants (the B2B case): the owner org lends a project with some of its roles to another org
// (ManagementService *ProjectGrant*), which lists what it received with ListGrantedProjects.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { ProjectGrantState, type GrantedProjectSchema } from '@zitadel/proto/zitadel/project_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addProjectGrant,
  getProjectGrant,
  listGrantedProjects,
  listProjectGrants,
  removeProjectGrant,
  setProjectGrantState,
  updateProjectGrantRoles,
  type ProjectGrantFilter,
  type ProjectGrantRow,
} from '../../grants/project-grants.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { detailsMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { operation, orgOwner, projectRead, projectWrite, type Caller, type Operation } from '../operation.ts';
import { activationOperations } from './activation.ts';

function grantedProjectMessage(g: ProjectGrantRow): MessageInitShape<typeof GrantedProjectSchema> {
  return {
    grantId: g.id,
    grantedOrgId: g.granted_org_id,
    grantedOrgName: g.granted_org_name,
    grantedRoleKeys: g.role_keys,
    state: g.state === 'active' ? ProjectGrantState.ACTIVE : ProjectGrantState.INACTIVE,
    projectId: g.project_id,
    projectName: g.project_name,
    projectOwnerId: g.project_owner_id,
    projectOwnerName: g.project_owner_name,
    details: storedDetails(g, g.project_owner_id),
  };
}

const ref = (caller: Caller, req: { projectId: string; grantId: string }) => ({
  orgId: caller.orgId,
  projectId: req.projectId,
  grantId: req.grantId,
});

export function projectGrantOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: ManagementService.method.addProjectGrant,
      permission: projectWrite,
      async handle(caller, req) {
        const { grantId, details } = await addProjectGrant(
          db,
          { orgId: caller.orgId, projectId: req.projectId, grantedOrgId: req.grantedOrgId, roleKeys: req.roleKeys },
          caller.principal.userId,
        );
        return { grantId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getProjectGrantByID,
      permission: projectRead,
      async handle(caller, req) {
        return { projectGrant: grantedProjectMessage(await getProjectGrant(db, ref(caller, req))) };
      },
    }),
    operation({
      method: ManagementService.method.listProjectGrants,
      permission: projectRead,
      async handle(caller, req) {
        const filters = req.queries.map(({ query: q }, i): ProjectGrantFilter => {
          if (q.case === 'projectNameQuery') return { projectName: textFilter(q.value.name, q.value.method) };
          if (q.case === 'roleKeyQuery') return { roleKey: q.value.roleKey };
          throw invalidArgument(`invalid ListProjectGrantsRequest.Queries[${i}]: an empty query`, 'PROJECT-M099f');
        });
        const page = pageOf(req.query, 'ListProjectGrantsRequest');
        const result = await listProjectGrants(db, caller.orgId, req.projectId, filters, page);
        return { details: listDetailsMessage(result), result: result.rows.map(grantedProjectMessage) };
      },
    }),
    operation({
      method: ManagementService.method.updateProjectGrant,
      permission: projectWrite,
      async handle(caller, req) {
        const details = await updateProjectGrantRoles(
          db,
          ref(caller, req),
          { roleKeys: req.roleKeys },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    ...activationOperations(
      {
        deactivate: ManagementService.method.deactivateProjectGrant,
        reactivate: ManagementService.method.reactivateProjectGrant,
      },
      projectWrite,
      (caller, req: { projectId: string; grantId: string }, state) =>
        setProjectGrantState(db, ref(caller, req), state, caller.principal.userId),
    ),
    operation({
      method: ManagementService.method.removeProjectGrant,
      permission: projectWrite,
      async handle(caller, req) {
        return { details: detailsMessage(await removeProjectGrant(db, ref(caller, req), caller.principal.userId)) };
      },
    }),
    operation({
      method: ManagementService.method.listGrantedProjects,
      permission: orgOwner,
      async handle(caller, req) {
        const names = req.queries.flatMap((q) =>
          q.query.case === 'nameQuery' ? [textFilter(q.query.value.name, q.query.value.method)] : [],
        );
        const page = pageOf(req.query, 'ListGrantedProjectsRequest');
        const result = await listGrantedProjects(db, caller.orgId, names, page);
        return { details: listDetailsMessage(result), result: result.rows.map(grantedProjectMessage) };
      },
    }),
  ];
}
