// zitadel.management.v1.ManagementService, project settings and roles: the org in context's
// projects (ORG_OWNER of it, IAM_OWNER everywhere; a project's PROJECT_OWNER, or PROJECT_OWNER_VIEWER for reads,
// as ZITADEL's cmd/defaults.yaml gives them: auth.ts). Only the org's owners add one.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { ProjectState, type ProjectSchema, type RoleSchema } from '@zitadel/proto/zitadel/project_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addProject,
  getProject,
  listProjects,
  removeProject,
  setProjectState,
  updateProject,
  type ProjectRow,
} from '../../projects/service.ts';
import { addProjectRoles, listProjectRoles, removeProjectRole, updateProjectRole } from '../../projects/roles.ts';
import type { RoleRow } from '../../projects/queries.ts';
import { detailsMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import {
  inId,
  operation,
  orgOwner,
  projectPermission,
  type Operation,
  projectRead,
  projectWrite,
} from '../operation.ts';
import { activationOperations } from './activation.ts';

const readProject = projectPermission('read', inId);
const writeProject = projectPermission('write', inId);

function projectMessage(p: ProjectRow): MessageInitShape<typeof ProjectSchema> {
  return {
    id: p.id,
    details: storedDetails(p, p.org_id),
    name: p.name,
    state: p.state === 'active' ? ProjectState.ACTIVE : ProjectState.INACTIVE,
    projectRoleAssertion: p.project_role_assertion,
    projectRoleCheck: p.project_role_check,
    hasProjectCheck: p.has_project_check,
  };
}

const roleMessage = (r: RoleRow, orgId: string): MessageInitShape<typeof RoleSchema> => ({
  key: r.role_key,
  details: storedDetails(r, orgId),
  displayName: r.display_name,
  group: r.role_group,
});

export function projectOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: ManagementService.method.addProject,
      permission: orgOwner,
      async handle(caller, req) {
        const { projectId, details } = await addProject(
          db,
          { orgId: caller.orgId, name: req.name },
          caller.principal.userId,
        );
        return { id: projectId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getProjectByID,
      permission: readProject,
      async handle(caller, req) {
        return { project: projectMessage(await getProject(db, caller.orgId, req.id)) };
      },
    }),
    operation({
      method: ManagementService.method.listProjects,
      permission: projectPermission('read'),
      async handle(caller, req) {
        const names = req.queries.flatMap((q) =>
          q.query.case === 'nameQuery' ? [textFilter(q.query.value.name, q.query.value.method)] : [],
        );
        const page = pageOf(req.query, 'ListProjectsRequest');
        // a project member sees its own projects only (ZITADEL filters the list by permission the same way)
        const result = await listProjects(db, caller.orgId, names, page, caller.projectIds);
        return { details: listDetailsMessage(result), result: result.rows.map(projectMessage) };
      },
    }),
    operation({
      method: ManagementService.method.updateProject,
      permission: writeProject,
      async handle(caller, req) {
        const details = await updateProject(
          db,
          { orgId: caller.orgId, projectId: req.id },
          {
            name: req.name,
            projectRoleAssertion: req.projectRoleAssertion,
            projectRoleCheck: req.projectRoleCheck,
            hasProjectCheck: req.hasProjectCheck,
          },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    ...activationOperations(
      {
        deactivate: ManagementService.method.deactivateProject,
        reactivate: ManagementService.method.reactivateProject,
      },
      writeProject,
      (caller, req: { id: string }, state) =>
        setProjectState(db, { orgId: caller.orgId, projectId: req.id }, state, caller.principal.userId),
    ),
    operation({
      method: ManagementService.method.removeProject,
      permission: writeProject,
      async handle(caller, req) {
        const ref = { orgId: caller.orgId, projectId: req.id };
        return { details: detailsMessage(await removeProject(db, ref, caller.principal.userId)) };
      },
    }),
    operation({
      method: ManagementService.method.addProjectRole,
      permission: projectWrite,
      async handle(caller, req) {
        const details = await addProjectRoles(
          db,
          { orgId: caller.orgId, projectId: req.projectId },
          { roles: [{ key: req.roleKey, displayName: req.displayName, group: req.group }] },
          'AddProjectRoleRequest',
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.bulkAddProjectRoles,
      permission: projectWrite,
      async handle(caller, req) {
        const details = await addProjectRoles(
          db,
          { orgId: caller.orgId, projectId: req.projectId },
          { roles: req.roles },
          'BulkAddProjectRolesRequest',
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.listProjectRoles,
      permission: projectRead,
      async handle(caller, req) {
        const filters = req.queries.map((q) =>
          q.query.case === 'keyQuery'
            ? { key: textFilter(q.query.value.key, q.query.value.method) }
            : q.query.case === 'displayNameQuery'
              ? { displayName: textFilter(q.query.value.displayName, q.query.value.method) }
              : {},
        );
        const result = await listProjectRoles(
          db,
          { orgId: caller.orgId, projectId: req.projectId },
          filters,
          pageOf(req.query, 'ListProjectRolesRequest'),
        );
        return { details: listDetailsMessage(result), result: result.rows.map((r) => roleMessage(r, caller.orgId)) };
      },
    }),
    operation({
      method: ManagementService.method.updateProjectRole,
      permission: projectWrite,
      async handle(caller, req) {
        const details = await updateProjectRole(
          db,
          { orgId: caller.orgId, projectId: req.projectId },
          { key: req.roleKey, displayName: req.displayName, group: req.group },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.removeProjectRole,
      permission: projectWrite,
      async handle(caller, req) {
        const ref = { orgId: caller.orgId, projectId: req.projectId };
        return { details: detailsMessage(await removeProjectRole(db, ref, req.roleKey, caller.principal.userId)) };
      },
    }),
  ];
}
