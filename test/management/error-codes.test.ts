// ZITADEL's error codes on the management, admin and auth methods added since the first release: each row is one
// refused call, driven through the real API on REST, gRPC and gRPC-Web, with the gRPC code and the error ID ZITADEL's
// command layer answers for it, and the Go function it comes from. SDK users branch on the code: a state precondition
// (a role key the project lacks, a missing user of a new grant, a wrong state) is FAILED_PRECONDITION (REST 400), a
// missing object addressed by the call NOT_FOUND, a duplicate ALREADY_EXISTS, and only malformed input
// INVALID_ARGUMENT.
import { getOption } from '@bufbuild/protobuf';
import type { DescService } from '@bufbuild/protobuf';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { http } from '@zitadel/proto/google/api/annotations_pb.js';
import { openapiv2_swagger } from '@zitadel/proto/protoc-gen-openapiv2/options/annotations_pb.js';
import { beforeAll, expect, it } from 'vitest';
import type { ApiCall } from '../helpers/management.ts';
import { calls, describeEachEncoding, unique, type EncodingSuite } from '../helpers/provisioning.ts';

const FAILED_PRECONDITION = 9;
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;
const INVALID_ARGUMENT = 3;
const REST_STATUS: Record<number, number> = { 3: 400, 5: 404, 6: 409, 9: 400 };
const MISSING = '404404404';

/** The call of `method` with `body`, at the REST path its google.api.http binding names. */
function rpc(service: DescService, method: string, body: Record<string, unknown>): ApiCall {
  const desc = service.methods.find((m) => m.name === method)!;
  const rule = getOption(desc, http);
  const basePath = getOption(service.file, openapiv2_swagger).basePath;
  const path = (rule.pattern.value as string).replace(/\{([a-z_]+)(?:=\*\*)?\}/g, (_m, field: string) =>
    String(body[field.replace(/_([a-z])/g, (_s, c: string) => c.toUpperCase())]),
  );
  const verb = String(rule.pattern.case).toUpperCase();
  return { service, method, rest: [verb, basePath + path], body, deleteWithBody: verb === 'DELETE' && !!rule.body };
}
const M = (method: string, body: Record<string, unknown> = {}) => rpc(ManagementService, method, body);
const A = (method: string, body: Record<string, unknown> = {}) => rpc(AdminService, method, body);

/** What the rows refer to, made once per encoding in the first org unless named otherwise. */
interface Fixture {
  firstOrgId: string;
  otherOrgId: string;
  projectName: string;
  /** roles reader and writer; lent to the other org with reader only */
  projectId: string;
  inactiveProjectId: string;
  userId: string;
  /** a machine user without a secret */
  machineId: string;
  /** a user of the other org, granted under the project grant */
  otherUserId: string;
  userGrantId: string;
  projectGrantId: string;
  oidcAppId: string;
  apiAppId: string;
}

type As = 'orgOwner' | 'admin' | 'otherOrgAdmin';
interface Row {
  /** ZITADEL's source: the Go file under internal/command and the function */
  zitadel: string;
  call: (f: Fixture) => ApiCall;
  code: number;
  id: string;
  as?: As;
}

const ROWS: Record<string, Row> = {
  // --- user grants
  'AddUserGrant, a role key the project does not have': {
    zitadel: 'user_grant.go checkUserGrantPreCondition',
    call: (f) => M('AddUserGrant', { userId: f.otherUserId, projectId: f.projectId, roleKeys: ['ghost'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-mm9F4',
  },
  "AddUserGrant, a role key the org's project grant does not include": {
    zitadel: 'user_grant.go checkUserGrantPreCondition',
    call: (f) =>
      M('AddUserGrant', {
        userId: f.otherUserId,
        projectId: f.projectId,
        projectGrantId: f.projectGrantId,
        roleKeys: ['writer'],
      }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-mm9F4',
    as: 'otherOrgAdmin',
  },
  'UpdateUserGrant, a role key the project does not have': {
    zitadel: 'user_grant.go ChangeUserGrant, checkUserGrantPreCondition',
    call: (f) => M('UpdateUserGrant', { userId: f.userId, grantId: f.userGrantId, roleKeys: ['reader', 'ghost'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-mm9F4',
  },
  'AddUserGrant, a user that does not exist': {
    zitadel: 'user.go checkUserExists (from user_grant.go checkUserGrantPreCondition)',
    call: (f) => M('AddUserGrant', { userId: MISSING, projectId: f.projectId, roleKeys: ['reader'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-uXHNj',
  },
  'AddUserGrant, a project that does not exist': {
    zitadel: 'user_grant.go searchUserGrantPreConditionState',
    call: (f) => M('AddUserGrant', { userId: f.userId, projectId: MISSING, roleKeys: ['reader'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-m9gsd',
  },
  'AddUserGrant, a project grant the org does not hold': {
    zitadel: 'user_grant.go searchUserGrantPreConditionState',
    call: (f) =>
      M('AddUserGrant', { userId: f.userId, projectId: f.projectId, projectGrantId: MISSING, roleKeys: ['reader'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-huvKF',
  },
  'UpdateUserGrant, a grant that does not exist': {
    zitadel: 'user_grant.go ChangeUserGrant',
    call: (f) => M('UpdateUserGrant', { userId: f.userId, grantId: MISSING, roleKeys: ['reader'] }),
    code: NOT_FOUND,
    id: 'COMMAND-3M9sd',
  },
  'DeactivateUserGrant, a grant that does not exist': {
    zitadel: 'user_grant.go DeactivateUserGrant',
    call: (f) => M('DeactivateUserGrant', { userId: f.userId, grantId: MISSING }),
    code: NOT_FOUND,
    id: 'COMMAND-3M9sd',
  },
  'ReactivateUserGrant, a grant that does not exist': {
    zitadel: 'user_grant.go ReactivateUserGrant',
    call: (f) => M('ReactivateUserGrant', { userId: f.userId, grantId: MISSING }),
    code: NOT_FOUND,
    id: 'COMMAND-Lp0gs',
  },
  'ReactivateUserGrant, an active grant': {
    zitadel: 'user_grant.go ReactivateUserGrant',
    call: (f) => M('ReactivateUserGrant', { userId: f.userId, grantId: f.userGrantId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-1ML0v',
  },
  'RemoveUserGrant, a grant that does not exist': {
    zitadel: 'user_grant.go removeUserGrant',
    call: (f) => M('RemoveUserGrant', { userId: f.userId, grantId: MISSING }),
    code: NOT_FOUND,
    id: 'COMMAND-1My0t',
  },
  'AddUserGrant, a second active grant of the project': {
    zitadel: 'user_grant.go AddUserGrant (its unique constraint)',
    call: (f) => M('AddUserGrant', { userId: f.userId, projectId: f.projectId, roleKeys: ['writer'] }),
    code: ALREADY_EXISTS,
    id: 'COMMAND-4M0fs',
  },
  // --- project grants
  'AddProjectGrant, a role key the project does not have': {
    zitadel: 'project_grant.go checkProjectGrantPreCondition',
    call: (f) => M('AddProjectGrant', { projectId: f.projectId, grantedOrgId: f.otherOrgId, roleKeys: ['ghost'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-6m9gd',
  },
  'AddProjectGrant, an org that does not exist': {
    zitadel: 'project_grant.go searchProjectGrantState',
    call: (f) => M('AddProjectGrant', { projectId: f.projectId, grantedOrgId: MISSING, roleKeys: ['reader'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-3m9gg',
  },
  'UpdateProjectGrant, a role key the project does not have': {
    zitadel: 'project_grant.go ChangeProjectGrant, checkProjectGrantPreCondition',
    call: (f) => M('UpdateProjectGrant', { projectId: f.projectId, grantId: f.projectGrantId, roleKeys: ['ghost'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-6m9gd',
  },
  'AddProjectGrant, to the org that owns the project': {
    zitadel: 'project_grant.go AddProjectGrant',
    call: (f) => M('AddProjectGrant', { projectId: f.projectId, grantedOrgId: f.firstOrgId, roleKeys: ['reader'] }),
    code: FAILED_PRECONDITION,
    id: 'PROJECT-ckUpbvboAH',
  },
  'AddProjectGrant, a project that does not exist': {
    zitadel: 'project_grant.go searchProjectGrantState',
    call: () => M('AddProjectGrant', { projectId: MISSING, grantedOrgId: MISSING, roleKeys: [] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-m9gsd',
  },
  'ReactivateProjectGrant, an active grant': {
    zitadel: 'project_grant.go ReactivateProjectGrant',
    call: (f) => M('ReactivateProjectGrant', { projectId: f.projectId, grantId: f.projectGrantId }),
    code: FAILED_PRECONDITION,
    id: 'PROJECT-47fu8',
  },
  'UpdateProjectGrant, a grant that does not exist': {
    zitadel: 'project_grant.go ChangeProjectGrant',
    call: (f) => M('UpdateProjectGrant', { projectId: f.projectId, grantId: MISSING, roleKeys: ['reader'] }),
    code: NOT_FOUND,
    id: 'PROJECT-D8JxR',
  },
  // --- members
  'AddOrgMember, a user that does not exist': {
    zitadel: 'org_member.go AddOrgMemberCommand',
    call: () => M('AddOrgMember', { userId: MISSING, roles: ['ORG_OWNER_VIEWER'] }),
    code: FAILED_PRECONDITION,
    id: 'ORG-GoXOn',
  },
  'AddOrgMember, a member already': {
    zitadel: 'org_member.go AddOrgMemberCommand',
    call: (f) => M('AddOrgMember', { userId: f.userId, roles: ['ORG_OWNER_VIEWER'] }),
    code: ALREADY_EXISTS,
    id: 'ORG-poWwe',
  },
  'UpdateOrgMember, the roles held': {
    zitadel: 'org_member.go ChangeOrgMember',
    call: (f) => M('UpdateOrgMember', { userId: f.userId, roles: ['ORG_OWNER_VIEWER'] }),
    code: FAILED_PRECONDITION,
    id: 'Org-LiaZi',
  },
  'RemoveOrgMember, no member': {
    zitadel: 'org_member.go orgMemberWriteModelByID',
    call: (f) => M('RemoveOrgMember', { userId: f.otherUserId }),
    code: NOT_FOUND,
    id: 'Org-D8JxR',
  },
  'AddIAMMember, a user that does not exist': {
    zitadel: 'instance_member.go AddInstanceMemberCommand',
    call: () => A('AddIAMMember', { userId: MISSING, roles: ['IAM_OWNER_VIEWER'] }),
    code: FAILED_PRECONDITION,
    id: 'INSTA-GSXOn',
    as: 'admin',
  },
  'AddIAMMember, a member already': {
    zitadel: 'instance_member.go AddInstanceMemberCommand',
    call: (f) => A('AddIAMMember', { userId: f.userId, roles: ['IAM_OWNER_VIEWER'] }),
    code: ALREADY_EXISTS,
    id: 'INSTA-pFDwe',
    as: 'admin',
  },
  'AddProjectMember, a user that does not exist': {
    zitadel: 'project_member.go addProjectMember (user.go checkUserExists)',
    call: (f) => M('AddProjectMember', { projectId: f.projectId, userId: MISSING, roles: ['PROJECT_OWNER_VIEWER'] }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-uXHNj',
  },
  'AddProjectMember, a member already': {
    zitadel: 'project_member.go addProjectMember',
    call: (f) => M('AddProjectMember', { projectId: f.projectId, userId: f.userId, roles: ['PROJECT_OWNER_VIEWER'] }),
    code: ALREADY_EXISTS,
    id: 'PROJECT-PtXi1',
  },
  'RemoveProjectMember, no member': {
    zitadel: 'project_member.go projectMemberWriteModelByID',
    call: (f) => M('RemoveProjectMember', { projectId: f.projectId, userId: f.otherUserId }),
    code: NOT_FOUND,
    id: 'PROJECT-D8JxR',
  },
  // --- roles
  'AddProjectRole, a project that does not exist': {
    zitadel: 'project_role.go AddProjectRole (project.go checkProjectExists)',
    call: () => M('AddProjectRole', { projectId: MISSING, roleKey: 'k', displayName: 'K' }),
    code: FAILED_PRECONDITION,
    id: 'COMMA-VCnwD',
  },
  'UpdateProjectRole, a role that does not exist': {
    zitadel: 'project_role.go ChangeProjectRole',
    call: (f) => M('UpdateProjectRole', { projectId: f.projectId, roleKey: 'ghost', displayName: 'G' }),
    code: NOT_FOUND,
    id: 'COMMAND-vv8M9',
  },
  'UpdateProjectRole, nothing changed': {
    zitadel: 'project_role.go ChangeProjectRole',
    call: (f) => M('UpdateProjectRole', { projectId: f.projectId, roleKey: 'reader', displayName: 'reader' }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-5M0cs',
  },
  'RemoveProjectRole, a role that does not exist': {
    zitadel: 'project_role.go RemoveProjectRole',
    call: (f) => M('RemoveProjectRole', { projectId: f.projectId, roleKey: 'ghost' }),
    code: NOT_FOUND,
    id: 'COMMAND-m9vMf',
  },
  // --- metadata
  'SetUserMetadata, a user that does not exist': {
    zitadel: 'user_metadata.go SetUserMetadata (user.go checkUserExists)',
    call: () => M('SetUserMetadata', { id: MISSING, key: 'k', value: Buffer.from('v').toString('base64') }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-uXHNj',
  },
  'RemoveUserMetadata, a key the user does not have': {
    zitadel: 'user_metadata.go RemoveUserMetadata',
    call: (f) => M('RemoveUserMetadata', { id: f.userId, key: 'ghost' }),
    code: NOT_FOUND,
    id: 'META-ncnw3',
  },
  // --- factors and passkeys
  'RemoveHumanAuthFactorOTP, no authenticator': {
    zitadel: 'user_human_otp.go HumanRemoveTOTP',
    call: (f) => M('RemoveHumanAuthFactorOTP', { userId: f.userId }),
    code: NOT_FOUND,
    id: 'COMMAND-Hd9sd',
  },
  'RemoveHumanPasswordless, a passkey that does not exist': {
    zitadel: 'user_human_webauthn.go removeHumanWebAuthN',
    call: (f) => M('RemoveHumanPasswordless', { userId: f.userId, tokenId: MISSING }),
    code: NOT_FOUND,
    id: 'COMMAND-DAfb2',
  },
  // --- IdPs and the login policy
  'AddIDPToLoginPolicy, an IdP that does not exist': {
    zitadel: 'instance_policy_login.go AddIDPProviderToDefaultLoginPolicy',
    call: () => A('AddIDPToLoginPolicy', { idpId: MISSING }),
    code: FAILED_PRECONDITION,
    id: 'INSTANCE-m8fsd',
    as: 'admin',
  },
  // --- user, project, app and org lifecycle
  'RemoveMachineSecret, a machine user without one': {
    zitadel: 'user_machine_secret.go prepareRemoveMachineSecret',
    call: (f) => M('RemoveMachineSecret', { userId: f.machineId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-coi82n',
  },
  'ReactivateUser, an active user': {
    zitadel: 'user.go ReactivateUser',
    call: (f) => M('ReactivateUser', { id: f.userId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-6M0sf',
  },
  'UnlockUser, a user not locked': {
    zitadel: 'user.go UnlockUser',
    call: (f) => M('UnlockUser', { id: f.userId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-4M0ds',
  },
  'UpdateProject, nothing changed': {
    zitadel: 'project.go ChangeProject',
    call: (f) => M('UpdateProject', { id: f.projectId, name: f.projectName }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-2M0fs',
  },
  'DeactivateProject, an inactive project': {
    zitadel: 'project.go DeactivateProject',
    call: (f) => M('DeactivateProject', { id: f.inactiveProjectId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-mki55',
  },
  'ReactivateProject, an active project': {
    zitadel: 'project.go ReactivateProject',
    call: (f) => M('ReactivateProject', { id: f.projectId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-5M9bs',
  },
  'ReactivateApp, an active app': {
    zitadel: 'project_application.go ReactivateApplication',
    call: (f) => M('ReactivateApp', { projectId: f.projectId, appId: f.oidcAppId }),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-1n8cM',
  },
  'AddAppKey, an app without private_key_jwt': {
    zitadel: 'project_application_key.go AddApplicationKey',
    call: (f) => calls.addAppKey(f.projectId, f.oidcAppId),
    code: FAILED_PRECONDITION,
    id: 'COMMAND-Dff54',
  },
  'UpdateOIDCAppConfig, an API app': {
    zitadel: 'project_application_oidc.go ChangeOIDCApplication',
    call: (f) => calls.updateOidcConfig(f.projectId, f.apiAppId),
    code: INVALID_ARGUMENT,
    id: 'COMMAND-GBr34',
  },
  'RegenerateOIDCClientSecret, an API app': {
    zitadel: 'project_application_oidc.go ChangeOIDCApplicationSecret',
    call: (f) => M('RegenerateOIDCClientSecret', { projectId: f.projectId, appId: f.apiAppId }),
    code: INVALID_ARGUMENT,
    id: 'COMMAND-Ghrh3',
  },
  'UpdateAPIAppConfig, an OIDC app': {
    zitadel: 'project_application_api.go ChangeAPIApplication',
    call: (f) =>
      M('UpdateAPIAppConfig', {
        projectId: f.projectId,
        appId: f.oidcAppId,
        authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
      }),
    code: INVALID_ARGUMENT,
    id: 'COMMAND-Gnwt3',
  },
  'RegenerateAPIClientSecret, an OIDC app': {
    zitadel: 'project_application_api.go ChangeAPIApplicationSecret',
    call: (f) => M('RegenerateAPIClientSecret', { projectId: f.projectId, appId: f.oidcAppId }),
    code: INVALID_ARGUMENT,
    id: 'COMMAND-aeH4',
  },
  'ReactivateOrg, an active org': {
    zitadel: 'org.go ReactivateOrg',
    call: () => M('ReactivateOrg'),
    code: FAILED_PRECONDITION,
    id: 'EVENT-bfnrh',
  },
  'RemoveOrg, the default org': {
    zitadel: 'org.go prepareRemoveOrg',
    call: () => M('RemoveOrg'),
    code: FAILED_PRECONDITION,
    id: 'COMMA-wG9p1',
  },
};

async function makeFixture({ p, okCall }: EncodingSuite): Promise<Fixture> {
  const projectName = unique('codes');
  const { id: projectId } = await okCall(calls.addProject(projectName));
  await okCall(
    M('BulkAddProjectRoles', {
      projectId,
      roles: [
        { key: 'reader', displayName: 'reader' },
        { key: 'writer', displayName: 'writer' },
      ],
    }),
  );
  const { id: inactiveProjectId } = await okCall(calls.addProject());
  await okCall(M('DeactivateProject', { id: inactiveProjectId }));
  const { userId } = await okCall(calls.importHumanUser());
  const { userId: machineId } = await okCall(calls.addMachineUser());
  const { userId: otherUserId } = await okCall(calls.importHumanUser(), p.adminToken, p.otherOrgId);
  const { userGrantId } = await okCall<{ userGrantId: string }>(
    M('AddUserGrant', { userId, projectId, roleKeys: ['reader'] }),
  );
  const lent = { projectId, grantedOrgId: p.otherOrgId, roleKeys: ['reader'] };
  const { grantId: projectGrantId } = await okCall<{ grantId: string }>(M('AddProjectGrant', lent));
  await okCall(M('AddOrgMember', { userId, roles: ['ORG_OWNER_VIEWER'] }));
  await okCall(M('AddProjectMember', { projectId, userId, roles: ['PROJECT_OWNER_VIEWER'] }));
  await okCall(A('AddIAMMember', { userId, roles: ['IAM_OWNER_VIEWER'] }), p.adminToken);
  const { appId: oidcAppId } = await okCall(calls.addOidcApp(projectId));
  const { appId: apiAppId } = await okCall(calls.addApiApp(projectId));
  return {
    firstOrgId: p.firstOrgId,
    otherOrgId: p.otherOrgId,
    projectName,
    projectId,
    inactiveProjectId,
    userId,
    machineId,
    otherUserId,
    userGrantId,
    projectGrantId,
    oidcAppId,
    apiAppId,
  };
}

describeEachEncoding("ZITADEL's error codes", (suite) => {
  const { encoding, p, call } = suite;
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await makeFixture(suite);
  });

  it.each(Object.entries(ROWS))('%s', async (_name, row) => {
    const [token, orgId] = {
      orgOwner: [p.orgOwnerToken, undefined],
      admin: [p.adminToken, undefined],
      otherOrgAdmin: [p.adminToken, p.otherOrgId],
    }[row.as ?? 'orgOwner'];
    const outcome = await call(row.call(fixture), token, orgId);
    expect(outcome, `${row.zitadel}: ${JSON.stringify(outcome)}`).toMatchObject({ ok: false, code: row.code });
    if (outcome.ok) return;
    expect(outcome.message.endsWith(` (${row.id})`), `${outcome.message} carries ${row.id}`).toBe(true);
    if (encoding === 'rest') {
      expect(outcome.status).toBe(REST_STATUS[row.code]);
      expect(outcome.body?.details).toEqual([
        { '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: row.id, message: expect.any(String) },
      ]);
    }
  });
});
