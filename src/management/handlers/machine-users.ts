// Machine users on zitadel.management.v1.ManagementService: add and change one, its JSON keys, its client
// secret. All within the org in context (ids of other orgs: 404), ORG_OWNER of it or IAM_OWNER.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addMachineUser,
  addMachineUserKey,
  generateMachineSecret,
  listMachineUserKeys,
  removeMachineSecret,
  removeMachineUserKey,
} from '../../users/machine-service.ts';
import { updateMachine } from '../../users/update.ts';
import { TOKEN_TYPES } from '../app-messages.ts';
import { detailsMessage, keyDetails, keyMessages } from '../convert.ts';
import { pageOf, listDetailsMessage } from '../list-query.ts';
import { operation, orgOwner, type Operation } from '../operation.ts';
import { unsupported, userRef } from './users.ts';

const M = ManagementService.method;

export function machineUserOperations({ db, secrets }: ManagementDeps): Operation[] {
  return [
    operation({
      method: M.addMachineUser,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.userId) throw unsupported('AddMachineUserRequest.UserId');
        const { userId, details } = await addMachineUser(
          db,
          {
            orgId: caller.orgId,
            userName: req.userName,
            name: req.name,
            description: req.description,
            accessTokenType: TOKEN_TYPES[req.accessTokenType]!,
          },
          caller.principal.userId,
        );
        return { userId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.updateMachine,
      permission: orgOwner,
      async handle(caller, req) {
        const input = {
          name: req.name,
          description: req.description,
          accessTokenType: TOKEN_TYPES[req.accessTokenType]!,
        };
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await updateMachine(db, ref, input, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.addMachineKey,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.publicKey.length) throw unsupported('AddMachineKeyRequest.PublicKey');
        const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : undefined;
        const { keyId, keyFile, details } = await addMachineUserKey(
          db,
          userRef(caller, req.userId),
          expiresAt,
          caller.principal.userId,
        );
        return { keyId, keyDetails: keyDetails(keyFile), details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.listMachineKeys,
      permission: orgOwner,
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListMachineKeysRequest');
        const result = await listMachineUserKeys(db, userRef(caller, req.userId), page);
        return { details: listDetailsMessage(result), result: keyMessages(result, caller.orgId) };
      },
    }),
    operation({
      method: M.removeMachineKey,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await removeMachineUserKey(db, ref, req.keyId, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.generateMachineSecret,
      permission: orgOwner,
      async handle(caller, req) {
        const { clientId, clientSecret, details } = await generateMachineSecret(
          db,
          secrets,
          userRef(caller, req.userId),
          caller.principal.userId,
        );
        return { clientId, clientSecret, details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.removeMachineSecret,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = userRef(caller, req.userId);
        return { details: detailsMessage(await removeMachineSecret(db, ref, caller.principal.userId)) };
      },
    }),
  ];
}
