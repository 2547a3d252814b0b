// The lockout policy (ZITADEL's LockoutPolicy; the update's REST path is the proto's,
// PUT /admin/v1/policies/password/lockout): administrators read and update the instance's; org owners
// read it (organizations have none of their own). Stored in the database, GATEHOUSE_LOCKOUT_MAX_ATTEMPTS until an
// administrator sets one (lockout/policy.ts). Second-factor failures are counted apart from password failures
// (a correct password resets none), against maxOtpAttempts; an update that leaves it out (0) gives it
// maxPasswordAttempts.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { getLockoutPolicy, type StoredLockoutPolicy, updateLockoutPolicy } from '../../lockout/policy.ts';
import { detailsMessage } from '../convert.ts';
import { iamOwner, operation, orgOwner, type Operation } from '../operation.ts';

export function lockoutPolicyOperations({ db, instance, config }: ManagementDeps): Operation[] {
  // (config is read per call: the methods table in docs/api.md lists the operations without one)
  const fallback = () => config.lockout.maxAttempts;
  const policyMessage = (p: StoredLockoutPolicy) => ({
    details: detailsMessage({ ...p.details, resourceOwner: instance.id }),
    maxPasswordAttempts: BigInt(p.maxPasswordAttempts),
    maxOtpAttempts: BigInt(p.maxOtpAttempts),
    // the instance's policy is every org's default (as for the other policies)
    isDefault: true,
  });
  const read = async () => ({ policy: policyMessage(await getLockoutPolicy(db, fallback())) });
  return [
    operation({ method: AdminService.method.getLockoutPolicy, permission: iamOwner, handle: read }),
    operation({
      method: AdminService.method.updateLockoutPolicy,
      permission: iamOwner,
      async handle(caller, req) {
        const { maxPasswordAttempts, maxOtpAttempts } = req;
        const maxima = { maxPasswordAttempts, maxOtpAttempts };
        const details = await updateLockoutPolicy(db, instance.id, maxima, fallback(), caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getLockoutPolicy,
      permission: orgOwner,
      async handle() {
        return { ...(await read()), isDefault: true };
      },
    }),
  ];
}
