// Second factors over the API: a user lists, adds, confirms and removes its own TOTP authenticator
// (AuthService), and org owners list and remove their users' (ManagementService). The kinds come from the
// factors registry, so a kind added there is listed here too.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { AuthFactorState, type AuthFactorSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ManagementDeps } from '../deps.ts';
import { FACTOR_KINDS } from '../../second-factors/registry.ts';
import type { FactorDeps, FactorEntry } from '../../second-factors/kind.ts';
import { addMyOtp, removeOtp, verifyMyOtp } from '../../factors/otp.ts';
import { getOrgUser, getUserById } from '../../users/service.ts';
import { detailsMessage } from '../convert.ts';
import { requireRecentLogin } from '../recent-login.ts';
import { authenticated, operation, orgOwner, type Caller, type Operation } from '../operation.ts';

type AuthFactorMessage = MessageInitShape<typeof AuthFactorSchema>;

/** The proto's oneof for each kind; a kind without one (none yet) is not listed. */
function factorMessage(entry: FactorEntry): AuthFactorMessage | undefined {
  const state = entry.ready ? AuthFactorState.READY : AuthFactorState.NOT_READY;
  if (entry.kind === 'otp') return { state, type: { case: 'otp', value: {} } };
  if (entry.kind === 'u2f') return { state, type: { case: 'u2f', value: { id: entry.id, name: entry.name } } };
  return undefined;
}

async function listFactors(deps: FactorDeps, userId: string): Promise<{ result: AuthFactorMessage[] }> {
  const entries = (await Promise.all(FACTOR_KINDS.map((k) => k.list(deps, userId)))).flat();
  return { result: entries.map(factorMessage).filter((m) => m !== undefined) };
}

export function authFactorOperations(deps: ManagementDeps): Operation[] {
  const { db } = deps;
  const me = (caller: Caller) => caller.principal.userId;
  // The API has no client address of its own: the lockout counts the caller (as UpdateMyPassword does).
  const callerKey = (caller: Caller) => `caller:${me(caller)}`;
  return [
    operation({
      method: AuthService.method.listMyAuthFactors,
      permission: authenticated,
      handle: (caller) => listFactors(deps, me(caller)),
    }),
    operation({
      method: AuthService.method.addMyAuthFactorOTP,
      permission: authenticated,
      async handle(caller) {
        requireRecentLogin(caller);
        const { url, secret, details } = await addMyOtp(deps, me(caller));
        return { url, secret, details: detailsMessage(details) };
      },
    }),
    operation({
      method: AuthService.method.verifyMyAuthFactorOTP,
      permission: authenticated,
      async handle(caller, req) {
        requireRecentLogin(caller);
        return { details: detailsMessage(await verifyMyOtp(deps, me(caller), req.code, callerKey(caller))) };
      },
    }),
    operation({
      method: AuthService.method.removeMyAuthFactorOTP,
      permission: authenticated,
      async handle(caller) {
        requireRecentLogin(caller);
        const user = await getUserById(db, me(caller));
        return { details: detailsMessage(await removeOtp(db, user, me(caller))) };
      },
    }),
    operation({
      method: ManagementService.method.listHumanAuthFactors,
      permission: orgOwner,
      async handle(caller, req) {
        const user = await getOrgUser(db, { orgId: caller.orgId, userId: req.userId });
        return listFactors(deps, user.id);
      },
    }),
    operation({
      method: ManagementService.method.removeHumanAuthFactorOTP,
      permission: orgOwner,
      async handle(caller, req) {
        const user = await getOrgUser(db, { orgId: caller.orgId, userId: req.userId });
        return { details: detailsMessage(await removeOtp(db, user, me(caller))) };
      },
    }),
  ];
}
