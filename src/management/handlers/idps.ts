// Issue 15's management operations on JWT identity providers and users' links to them (admin.proto,
// management.proto): DeactivateIDP / ReactivateIDP for the instance (IAM_OWNER), ListHumanLinkedIDPs for a user of
// the caller's org (ORG_OWNER).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { IDPType } from '@zitadel/proto/zitadel/idp_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { IAM_OWNER, ORG_OWNER } from '../../members/roles.ts';
import { setIdpState } from '../../idps/state.ts';
import { listUserLinks } from '../../idps/links.ts';
import { detailsMessage } from '../convert.ts';
import { listDetailsMessage, pageOf } from '../list-query.ts';
import { operation, type Operation } from '../operation.ts';

const iamOwner = { kind: 'instance', role: IAM_OWNER } as const;
const orgOwner = { kind: 'org', role: ORG_OWNER } as const;

export function idpOperations({ db, instance }: ManagementDeps): Operation[] {
  return [
    operation({
      method: AdminService.method.deactivateIDP,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await setIdpState(db, instance.id, req.idpId, 'inactive', caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: AdminService.method.reactivateIDP,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await setIdpState(db, instance.id, req.idpId, 'active', caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.listHumanLinkedIDPs,
      permission: orgOwner,
      async handle(caller, req) {
        const result = await listUserLinks(
          db,
          { orgId: caller.orgId, userId: req.userId },
          pageOf(req.query, 'ListHumanLinkedIDPsRequest'),
        );
        return {
          details: listDetailsMessage(result),
          result: result.rows.map((l) => ({
            userId: l.user_id,
            idpId: l.idp_id,
            idpName: l.idp_name,
            providedUserId: l.external_user_id,
            providedUserName: l.display_name,
            idpType: IDPType.IDP_TYPE_JWT,
          })),
        };
      },
    }),
  ];
}
