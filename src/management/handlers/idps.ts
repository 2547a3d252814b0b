// The management operations on JWT identity providers (admin.proto, IAM_OWNER): add, read, list, update, update
// the JWT configuration, deactivate, reactivate and remove the instance's IdPs, and the login policy's list of IdPs;
// and users' links to them (management.proto, ORG_OWNER of the user's org): list and remove.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AdminService, type IDPQuery } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import {
  IDPFieldName,
  IDPOwnerType,
  IDPState,
  IDPStylingTypeSchema,
  IDPType,
  type IDPSchema,
} from '@zitadel/proto/zitadel/idp_pb.js';
import type { ManagementDeps } from '../deps.ts';
import type { IdpRow, StylingType } from '../../idps/queries.ts';
import { setIdpState } from '../../idps/state.ts';
import { addJwtIdp, getIdpById, type IdpRef } from '../../idps/service.ts';
import { listIdps, removeIdp, updateIdp, updateIdpJwtConfig, type IdpFilter } from '../../idps/lifecycle.ts';
import { addIdpToLoginPolicy, listLoginPolicyIdps, removeIdpFromLoginPolicy } from '../../idps/login-policy.ts';
import { listUserLinks, removeUserLink } from '../../idps/links.ts';
import type { Details } from '../../events/details.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { detailsMessage, enumName, enumNumber, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { iamOwner, operation, orgOwner, type Caller, type Operation } from '../operation.ts';
import { activationOperations } from './activation.ts';

const A = AdminService.method;

/** zitadel.idp.v1.IDP: GetIDPByID and ListIDPs. The instance's IdPs are the system's (IDP_OWNER_TYPE_SYSTEM). */
function idpMessage(idp: IdpRow): MessageInitShape<typeof IDPSchema> {
  return {
    id: idp.id,
    details: storedDetails(idp, idp.instance_id),
    state: idp.state === 'active' ? IDPState.IDP_STATE_ACTIVE : IDPState.IDP_STATE_INACTIVE,
    name: idp.name,
    stylingType: enumNumber(IDPStylingTypeSchema, idp.styling_type),
    owner: IDPOwnerType.IDP_OWNER_TYPE_SYSTEM,
    autoRegister: idp.auto_register,
    config: {
      case: 'jwtConfig' as const,
      value: {
        jwtEndpoint: idp.jwt_endpoint,
        issuer: idp.issuer,
        keysEndpoint: idp.keys_endpoint,
        headerName: idp.header_name,
      },
    },
  };
}

function idpFilter(query: IDPQuery, i: number): IdpFilter {
  const q = query.query;
  switch (q.case) {
    case 'idpIdQuery':
      return { field: 'id', id: q.value.id };
    case 'idpNameQuery':
      return { field: 'name', text: textFilter(q.value.name, q.value.method) };
    default:
      throw invalidArgument(`invalid ListIDPsRequest.Queries[${i}]: an empty query is not supported`, 'ADMIN-VmqQu');
  }
}

/** The methods that take the IdP's id alone and answer with details. */
type IdpChange = (typeof A)['removeIDP' | 'addIDPToLoginPolicy' | 'removeIDPFromLoginPolicy'];

export function idpOperations({ db, instance }: ManagementDeps): Operation[] {
  const ref = (caller: Caller, idpId: string): IdpRef => ({
    instanceId: instance.id,
    idpId,
    editor: caller.principal.userId,
  });
  const change = (method: IdpChange, apply: (ref: IdpRef) => Promise<Details>) =>
    operation({
      method: method as (typeof A)['removeIDP'],
      permission: iamOwner,
      async handle(caller, req) {
        return { details: detailsMessage(await apply(ref(caller, req.idpId))) };
      },
    });
  return [
    operation({
      method: A.addJWTIDP,
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
      method: A.getIDPByID,
      permission: iamOwner,
      async handle(_caller, req) {
        return { idp: idpMessage(await getIdpById(db, req.id)) };
      },
    }),
    operation({
      method: A.listIDPs,
      permission: iamOwner,
      async handle(_caller, req) {
        const page = pageOf(req.query, 'ListIDPsRequest');
        const byName = req.sortingColumn === IDPFieldName.IDP_FIELD_NAME_NAME;
        const result = await listIdps(db, instance.id, req.queries.map(idpFilter), page, byName);
        // (ZITADEL's ListIDPs does not echo the sorting column, unlike ListOrgs)
        return { details: listDetailsMessage(result), result: result.rows.map(idpMessage) };
      },
    }),
    operation({
      method: A.updateIDP,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await updateIdp(db, ref(caller, req.idpId), {
          name: req.name,
          stylingType: enumName<StylingType>(IDPStylingTypeSchema, req.stylingType),
          autoRegister: req.autoRegister,
        });
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: A.updateIDPJWTConfig,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await updateIdpJwtConfig(db, ref(caller, req.idpId), {
          jwtEndpoint: req.jwtEndpoint,
          issuer: req.issuer,
          keysEndpoint: req.keysEndpoint,
          headerName: req.headerName,
        });
        return { details: detailsMessage(details) };
      },
    }),
    ...activationOperations(
      { deactivate: A.deactivateIDP, reactivate: A.reactivateIDP },
      iamOwner,
      (caller, req: { idpId: string }, state) =>
        setIdpState(db, instance.id, req.idpId, state, caller.principal.userId),
    ),
    change(A.removeIDP, (r) => removeIdp(db, r)),
    change(A.addIDPToLoginPolicy, (r) => addIdpToLoginPolicy(db, r)),
    operation({
      method: A.listLoginPolicyIDPs,
      permission: iamOwner,
      async handle(_caller, req) {
        const result = await listLoginPolicyIdps(db, instance.id, pageOf(req.query, 'ListLoginPolicyIDPsRequest'));
        return {
          details: listDetailsMessage(result),
          result: result.rows.map((r) => ({ idpId: r.idp_id, idpName: r.idp_name, idpType: IDPType.IDP_TYPE_JWT })),
        };
      },
    }),
    change(A.removeIDPFromLoginPolicy, (r) => removeIdpFromLoginPolicy(db, r)),
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
    operation({
      method: ManagementService.method.removeHumanLinkedIDP,
      permission: orgOwner,
      async handle(caller, req) {
        const link = { orgId: caller.orgId, userId: req.userId, idpId: req.idpId, externalUserId: req.linkedUserId };
        return { details: detailsMessage(await removeUserLink(db, link, caller.principal.userId)) };
      },
    }),
  ];
}
