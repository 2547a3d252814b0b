// zitadel.admin.v1.AdminService: instance administration, IAM_OWNER only, as in ZITADEL.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { IDPStylingTypeSchema } from '@zitadel/proto/zitadel/idp_pb.js';
import type { ManagementDeps } from '../deps.ts';
import type { StylingType } from '../../idps/queries.ts';
import { addJwtIdp, getIdpById } from '../../idps/service.ts';
import { getOrgById } from '../../orgs/service.ts';
import { setUpOrg } from '../../instance/set-up-org.ts';
import { detailsMessage, enumName, orgMessage, humanInput } from '../convert.ts';
import { idpMessage } from './idps.ts';
import { callerHash, iamOwner, operation, type Operation } from '../operation.ts';

export function adminServiceOperations({ db, instance, hashing }: ManagementDeps): Operation[] {
  return [
    operation({
      method: AdminService.method.addJWTIDP,
      permission: iamOwner,
      async handle(caller, req) {
        const { idpId, details } = await addJwtIdp(
          db,
          instance.id,
          {
            name: req.name,
            stylingType: enumName<StylingType>(IDPStylingTypeSchema, req.stylingType),
            autoRegister: req.autoRegister,
            jwtEndpoint: req.jwtEndpoint,
            issuer: req.issuer,
            keysEndpoint: req.keysEndpoint,
            headerName: req.headerName,
          },
          caller.principal.userId,
        );
        return { details: detailsMessage(details), idpId };
      },
    }),
    operation({
      method: AdminService.method.getIDPByID,
      permission: iamOwner,
      async handle(_caller, req) {
        return { idp: idpMessage(await getIdpById(db, req.id)) };
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
        const org = await getOrgById(db, req.id);
        return { org: orgMessage(org) };
      },
    }),
  ];
}
