// The lifecycle calls (list, lock, remove; roles and grants) as ApiCalls (ZITADEL's REST binding + request), beside
// provisioning.ts's.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ApiCall } from './management.ts';
import { unique } from './provisioning.ts';

const M = ManagementService;
const A = AdminService;
type Body = Record<string, unknown>;

const call = (service: ApiCall['service'], method: string, verb: string, path: string, body: Body = {}): ApiCall => ({
  service,
  method,
  rest: [verb, path],
  body,
});

export const lifecycle = {
  listUsers: (body: Body = {}) => call(M, 'ListUsers', 'POST', '/management/v1/users/_search', body),
  userByLoginName: (loginName: string) =>
    call(
      M,
      'GetUserByLoginNameGlobal',
      'GET',
      `/management/v1/global/users/_by_login_name?loginName=${encodeURIComponent(loginName)}`,
      {
        loginName,
      },
    ),
  isUserUnique: (userName: string, email = '') =>
    call(
      M,
      'IsUserUnique',
      'GET',
      `/management/v1/users/_is_unique?userName=${encodeURIComponent(userName)}&email=${encodeURIComponent(email)}`,
      { userName, email },
    ),
  addHumanUser: (body: Body = {}) => {
    const userName = unique('person');
    return call(M, 'AddHumanUser', 'POST', '/management/v1/users/human', {
      userName,
      profile: { firstName: 'Grace', lastName: 'Hopper' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      initialPassword: 'Initial-Password-1',
      ...body,
    });
  },
  updateUserName: (userId: string, userName: string) =>
    call(M, 'UpdateUserName', 'PUT', `/management/v1/users/${userId}/username`, { userId, userName }),
  updateProfile: (userId: string, body: Body) =>
    call(M, 'UpdateHumanProfile', 'PUT', `/management/v1/users/${userId}/profile`, { userId, ...body }),
  updateEmail: (userId: string, body: Body) =>
    call(M, 'UpdateHumanEmail', 'PUT', `/management/v1/users/${userId}/email`, { userId, ...body }),
  updatePhone: (userId: string, body: Body) =>
    call(M, 'UpdateHumanPhone', 'PUT', `/management/v1/users/${userId}/phone`, { userId, ...body }),
  userState: (id: string, action: 'deactivate' | 'reactivate' | 'lock' | 'unlock') =>
    call(M, `${action[0]!.toUpperCase()}${action.slice(1)}User`, 'POST', `/management/v1/users/${id}/_${action}`, {
      id,
    }),
  removeUser: (id: string) => call(M, 'RemoveUser', 'DELETE', `/management/v1/users/${id}`, { id }),
  updateMachine: (userId: string, body: Body) =>
    call(M, 'UpdateMachine', 'PUT', `/management/v1/users/${userId}/machine`, { userId, ...body }),
  listMachineKeys: (userId: string, body: Body = {}) =>
    call(M, 'ListMachineKeys', 'POST', `/management/v1/users/${userId}/keys/_search`, { userId, ...body }),
  removeMachineKey: (userId: string, keyId: string) =>
    call(M, 'RemoveMachineKey', 'DELETE', `/management/v1/users/${userId}/keys/${keyId}`, { userId, keyId }),
  removeMachineSecret: (userId: string) =>
    call(M, 'RemoveMachineSecret', 'DELETE', `/management/v1/users/${userId}/secret`, { userId }),
  listApps: (projectId: string, body: Body = {}) =>
    call(M, 'ListApps', 'POST', `/management/v1/projects/${projectId}/apps/_search`, { projectId, ...body }),
  updateApp: (projectId: string, appId: string, name: string) =>
    call(M, 'UpdateApp', 'PUT', `/management/v1/projects/${projectId}/apps/${appId}`, { projectId, appId, name }),
  updateApiConfig: (projectId: string, appId: string, authMethodType: string) =>
    call(M, 'UpdateAPIAppConfig', 'PUT', `/management/v1/projects/${projectId}/apps/${appId}/api_config`, {
      projectId,
      appId,
      authMethodType,
    }),
  appState: (projectId: string, appId: string, action: 'deactivate' | 'reactivate') =>
    call(
      M,
      action === 'deactivate' ? 'DeactivateApp' : 'ReactivateApp',
      'POST',
      `/management/v1/projects/${projectId}/apps/${appId}/_${action}`,
      { projectId, appId },
    ),
  removeApp: (projectId: string, appId: string) =>
    call(M, 'RemoveApp', 'DELETE', `/management/v1/projects/${projectId}/apps/${appId}`, { projectId, appId }),
  regenerateSecret: (projectId: string, appId: string, kind: 'oidc' | 'api') =>
    call(
      M,
      kind === 'oidc' ? 'RegenerateOIDCClientSecret' : 'RegenerateAPIClientSecret',
      'POST',
      `/management/v1/projects/${projectId}/apps/${appId}/${kind}_config/_generate_client_secret`,
      { projectId, appId },
    ),
  listAppKeys: (projectId: string, appId: string) =>
    call(M, 'ListAppKeys', 'POST', `/management/v1/projects/${projectId}/apps/${appId}/keys/_search`, {
      projectId,
      appId,
    }),
  removeAppKey: (projectId: string, appId: string, keyId: string) =>
    call(M, 'RemoveAppKey', 'DELETE', `/management/v1/projects/${projectId}/apps/${appId}/keys/${keyId}`, {
      projectId,
      appId,
      keyId,
    }),
  listOrgMembers: (body: Body = {}) =>
    call(M, 'ListOrgMembers', 'POST', '/management/v1/orgs/me/members/_search', body),
  addOrgMember: (userId: string, roles: string[]) =>
    call(M, 'AddOrgMember', 'POST', '/management/v1/orgs/me/members', { userId, roles }),
  updateOrgMember: (userId: string, roles: string[]) =>
    call(M, 'UpdateOrgMember', 'PUT', `/management/v1/orgs/me/members/${userId}`, { userId, roles }),
  removeOrgMember: (userId: string) =>
    call(M, 'RemoveOrgMember', 'DELETE', `/management/v1/orgs/me/members/${userId}`, { userId }),
  listOrgMemberRoles: () => call(M, 'ListOrgMemberRoles', 'POST', '/management/v1/orgs/members/roles/_search'),
  listProjectMembers: (projectId: string) =>
    call(M, 'ListProjectMembers', 'POST', `/management/v1/projects/${projectId}/members/_search`, { projectId }),
  addProjectMember: (projectId: string, userId: string, roles: string[]) =>
    call(M, 'AddProjectMember', 'POST', `/management/v1/projects/${projectId}/members`, { projectId, userId, roles }),
  removeProjectMember: (projectId: string, userId: string) =>
    call(M, 'RemoveProjectMember', 'DELETE', `/management/v1/projects/${projectId}/members/${userId}`, {
      projectId,
      userId,
    }),
  listUserMemberships: (userId: string, body: Body = {}) =>
    call(M, 'ListUserMemberships', 'POST', `/management/v1/users/${userId}/memberships/_search`, { userId, ...body }),
  listProjectMemberRoles: () =>
    call(M, 'ListProjectMemberRoles', 'POST', '/management/v1/projects/members/roles/_search'),
  listIamMembers: (body: Body = {}) => call(A, 'ListIAMMembers', 'POST', '/admin/v1/members/_search', body),
  updateIamMember: (userId: string, roles: string[]) =>
    call(A, 'UpdateIAMMember', 'PUT', `/admin/v1/members/${userId}`, { userId, roles }),
  removeIamMember: (userId: string) => call(A, 'RemoveIAMMember', 'DELETE', `/admin/v1/members/${userId}`, { userId }),
  listIamMemberRoles: () => call(A, 'ListIAMMemberRoles', 'POST', '/admin/v1/members/roles/_search'),
  listOrgs: (body: Body = {}) => call(A, 'ListOrgs', 'POST', '/admin/v1/orgs/_search', body),
  updateOrg: (name: string) => call(M, 'UpdateOrg', 'PUT', '/management/v1/orgs/me', { name }),
  orgState: (action: 'deactivate' | 'reactivate') =>
    call(M, action === 'deactivate' ? 'DeactivateOrg' : 'ReactivateOrg', 'POST', `/management/v1/orgs/me/_${action}`),
  removeMyOrg: () => call(M, 'RemoveOrg', 'DELETE', '/management/v1/orgs/me'),
  removeOrg: (orgId: string) => call(A, 'RemoveOrg', 'DELETE', `/admin/v1/orgs/${orgId}`, { orgId }),
  orgByDomain: (domain: string) =>
    call(
      M,
      'GetOrgByDomainGlobal',
      'GET',
      `/management/v1/global/orgs/_by_domain?domain=${encodeURIComponent(domain)}`,
      { domain },
    ),
  getOrg: (id: string) => call(A, 'GetOrgByID', 'GET', `/admin/v1/orgs/${id}`, { id }),
  userChanges: (userId: string, query: Body = {}) =>
    call(M, 'ListUserChanges', 'POST', `/management/v1/users/${userId}/changes/_search`, { userId, query }),
  appChanges: (projectId: string, appId: string) =>
    call(M, 'ListAppChanges', 'POST', `/management/v1/projects/${projectId}/apps/${appId}/changes/_search`, {
      projectId,
      appId,
    }),
  orgChanges: () => call(M, 'ListOrgChanges', 'POST', '/management/v1/orgs/me/changes/_search'),
  projectChanges: (projectId: string) =>
    call(M, 'ListProjectChanges', 'POST', `/management/v1/projects/${projectId}/changes/_search`, { projectId }),
  // project settings, roles and grants, as the project-owner tests call them
  getProject: (id: string) => call(M, 'GetProjectByID', 'GET', `/management/v1/projects/${id}`, { id }),
  removeProject: (id: string) => call(M, 'RemoveProject', 'DELETE', `/management/v1/projects/${id}`, { id }),
  listProjects: (body: Body = {}) => call(M, 'ListProjects', 'POST', '/management/v1/projects/_search', body),
  updateProject: (id: string, name: string) =>
    call(M, 'UpdateProject', 'PUT', `/management/v1/projects/${id}`, { id, name }),
  addProjectRole: (projectId: string, roleKey: string) =>
    call(M, 'AddProjectRole', 'POST', `/management/v1/projects/${projectId}/roles`, {
      projectId,
      roleKey,
      displayName: roleKey,
    }),
  listProjectRoles: (projectId: string) =>
    call(M, 'ListProjectRoles', 'POST', `/management/v1/projects/${projectId}/roles/_search`, { projectId }),
  addProjectGrant: (projectId: string, grantedOrgId: string, roleKeys: string[]) =>
    call(M, 'AddProjectGrant', 'POST', `/management/v1/projects/${projectId}/grants`, {
      projectId,
      grantedOrgId,
      roleKeys,
    }),
  listProjectGrants: (projectId: string) =>
    call(M, 'ListProjectGrants', 'POST', `/management/v1/projects/${projectId}/grants/_search`, { projectId }),
  addUserGrant: (userId: string, projectId: string, roleKeys: string[]) =>
    call(M, 'AddUserGrant', 'POST', `/management/v1/users/${userId}/grants`, { userId, projectId, roleKeys }),
  getUserGrant: (userId: string, grantId: string) =>
    call(M, 'GetUserGrantByID', 'GET', `/management/v1/users/${userId}/grants/${grantId}`, { userId, grantId }),
  listUserGrants: (body: Body = {}) => call(M, 'ListUserGrants', 'POST', '/management/v1/users/grants/_search', body),
};
