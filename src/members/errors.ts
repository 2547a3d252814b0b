// ZITADEL's member error IDs by the kind of resource: the same preconditions carry an ID of their own on an org
// (command/org_member.go), the instance (command/instance_member.go) and a project (command/project_member.go).
import type { ResourceType } from './queries.ts';

export interface MemberErrorIds {
  /** Add: the user does not exist (FAILED_PRECONDITION: a precondition of the command, not a read). */
  userMissing: string;
  /** Add: the user is a member already (ALREADY_EXISTS). */
  exists: string;
  /** Change or remove: the user is no member (NOT_FOUND). */
  notFound: string;
  /** Change: the roles given are the ones held (FAILED_PRECONDITION). */
  unchanged: string;
}

export const MEMBER_ERROR_IDS: Record<ResourceType, MemberErrorIds> = {
  // AddOrgMemberCommand, orgMemberWriteModelByID, ChangeOrgMember
  org: { userMissing: 'ORG-GoXOn', exists: 'ORG-poWwe', notFound: 'Org-D8JxR', unchanged: 'Org-LiaZi' },
  // AddInstanceMemberCommand, ChangeInstanceMember
  instance: {
    userMissing: 'INSTA-GSXOn',
    exists: 'INSTA-pFDwe',
    notFound: 'INSTANCE-D8JxR',
    unchanged: 'INSTANCE-LiaZi',
  },
  // addProjectMember (its user check is checkUserExists, command/user.go), projectMemberWriteModelByID,
  // ChangeProjectMember
  project: {
    userMissing: 'COMMAND-uXHNj',
    exists: 'PROJECT-PtXi1',
    notFound: 'PROJECT-D8JxR',
    unchanged: 'PROJECT-LiaZi',
  },
};
