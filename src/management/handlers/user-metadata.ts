// User metadata: ManagementService's metadata operations on users of the
// org in context.
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  getUserMetadata,
  listUserMetadata,
  removeUserMetadata,
  setUserMetadata,
  type MetadataRow,
} from '../../metadata/service.ts';
import { detailsMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { operation, orgOwner, type Operation } from '../operation.ts';
import { userRef } from './users.ts';

const metadataMessage = (m: MetadataRow, orgId: string) => ({
  details: storedDetails(m, orgId),
  key: m.key,
  value: new Uint8Array(m.value),
});

export function userMetadataOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: ManagementService.method.setUserMetadata,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await setUserMetadata(
          db,
          userRef(caller, req.id),
          { metadata: [{ key: req.key, value: req.value }] },
          'SetUserMetadataRequest',
          caller.principal.userId,
        );
        return { id: req.id, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.bulkSetUserMetadata,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await setUserMetadata(
          db,
          userRef(caller, req.id),
          { metadata: req.metadata },
          'BulkSetUserMetadataRequest',
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getUserMetadata,
      permission: orgOwner,
      async handle(caller, req) {
        return { metadata: metadataMessage(await getUserMetadata(db, userRef(caller, req.id), req.key), caller.orgId) };
      },
    }),
    operation({
      method: ManagementService.method.listUserMetadata,
      permission: orgOwner,
      async handle(caller, req) {
        const keyQuery = req.queries.find((q) => q.query.case === 'keyQuery')?.query.value;
        const result = await listUserMetadata(
          db,
          userRef(caller, req.id),
          keyQuery && textFilter(keyQuery.key, keyQuery.method),
          pageOf(req.query, 'ListUserMetadataRequest'),
        );
        return {
          details: listDetailsMessage(result),
          result: result.rows.map((m) => metadataMessage(m, caller.orgId)),
        };
      },
    }),
    operation({
      method: ManagementService.method.removeUserMetadata,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await removeUserMetadata(db, userRef(caller, req.id), req.key, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
