// Passkeys on the API, as ZITADEL v1 has them: the caller's own (auth service ListMyPasswordless,
// RemoveMyPasswordless) and an org's users' (management service ListHumanPasswordless, RemoveHumanPasswordless).
// Registration happens on the account page, where the browser's authenticator is.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { AuthFactorState } from '@zitadel/proto/zitadel/user_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { listPasskeys, removePasskey, type CredentialRow } from '../../passkeys/service.ts';
import { getOrgUser, getUserById } from '../../users/service.ts';
import { detailsMessage } from '../convert.ts';
import { requireRecentLogin } from '../recent-login.ts';
import { authenticated, operation, orgOwner, type Caller, type Operation } from '../operation.ts';

/** zitadel.user.v1.WebAuthNToken: only verified credentials are stored, so every one is READY. */
const tokenMessages = (rows: CredentialRow[]) =>
  rows.map((row) => ({ id: row.id, name: row.name, state: AuthFactorState.READY }));

export function passkeyOperations({ db }: ManagementDeps): Operation[] {
  const orgUser = (caller: Caller, userId: string) => getOrgUser(db, { orgId: caller.orgId, userId });
  return [
    operation({
      method: AuthService.method.listMyPasswordless,
      permission: authenticated,
      async handle(caller) {
        return { result: tokenMessages(await listPasskeys(db, caller.principal.userId)) };
      },
    }),
    operation({
      method: AuthService.method.removeMyPasswordless,
      permission: authenticated,
      async handle(caller, req) {
        requireRecentLogin(caller);
        const user = await getUserById(db, caller.principal.userId);
        return { details: detailsMessage(await removePasskey(db, user, req.tokenId, user.id)) };
      },
    }),
    operation({
      method: ManagementService.method.listHumanPasswordless,
      permission: orgOwner,
      async handle(caller, req) {
        const user = await orgUser(caller, req.userId);
        return { result: tokenMessages(await listPasskeys(db, user.id)) };
      },
    }),
    operation({
      method: ManagementService.method.removeHumanPasswordless,
      permission: orgOwner,
      async handle(caller, req) {
        const user = await orgUser(caller, req.userId);
        return { details: detailsMessage(await removePasskey(db, user, req.tokenId, caller.principal.userId)) };
      },
    }),
  ];
}
