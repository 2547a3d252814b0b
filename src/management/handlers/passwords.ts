// Passwords on the three services: the password complexity policy (the admin's, read by users and org owners),
// a user's change of its own password, an org owner's setting of a user's, and reset mails.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import {
  ManagementService,
  SendHumanResetPasswordNotificationRequest_Type as ResetType,
} from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { HashRefusal } from '../../users/passwords.ts';
import { getPasswordPolicy, type StoredPolicy } from '../../passwords/current.ts';
import { changeMyPassword, setHumanPassword, updatePasswordPolicy } from '../../passwords/service.ts';
import { sendPasswordResetNotification } from '../../passwords/reset.ts';
import { detailsMessage } from '../convert.ts';
import { authenticated, callerHash, iamOwner, operation, orgOwner, type Operation } from '../operation.ts';
import { userRef } from './users.ts';

export function passwordOperations(deps: ManagementDeps): Operation[] {
  const { db, instance, hashing, config, secrets, mailer } = deps;
  const emails = { db, secrets, mailer };
  const policyMessage = (p: StoredPolicy) => ({
    policy: {
      details: detailsMessage({ ...p.details, resourceOwner: instance.id }),
      minLength: BigInt(p.minLength),
      hasUppercase: p.hasUppercase,
      hasLowercase: p.hasLowercase,
      hasNumber: p.hasNumber,
      hasSymbol: p.hasSymbol,
      // organizations have no policies of their own: the instance's is every org's default
      isDefault: true,
    },
  });
  const readPolicy = async () => policyMessage(await getPasswordPolicy(db));

  return [
    operation({ method: AdminService.method.getPasswordComplexityPolicy, permission: iamOwner, handle: readPolicy }),
    operation({
      method: AdminService.method.updatePasswordComplexityPolicy,
      permission: iamOwner,
      async handle(caller, req) {
        const details = await updatePasswordPolicy(
          db,
          instance.id,
          {
            minLength: Number(req.minLength),
            hasUppercase: req.hasUppercase,
            hasLowercase: req.hasLowercase,
            hasNumber: req.hasNumber,
            hasSymbol: req.hasSymbol,
          },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getPasswordComplexityPolicy,
      permission: orgOwner,
      handle: readPolicy,
    }),
    operation({
      method: AuthService.method.getMyPasswordComplexityPolicy,
      permission: authenticated,
      handle: readPolicy,
    }),
    operation({
      method: AuthService.method.updateMyPassword,
      permission: authenticated,
      async handle(caller, req) {
        // The old password is checked like a sign-in: through the hashing queue and the lockout, keyed by the
        // caller (the API has no client address of its own here); one place for its check and the new hash.
        const key = `caller:${caller.principal.userId}`;
        const slot = hashing.tryAdmit(key, 2);
        if (slot instanceof HashRefusal) throw slot;
        const details = await changeMyPassword(
          { db, lockout: config.lockout, mailer },
          slot,
          { userId: caller.principal.userId, ip: key },
          { oldPassword: req.oldPassword, newPassword: req.newPassword, field: 'UpdateMyPasswordRequest.NewPassword' },
        ).finally(() => slot.release());
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.setHumanPassword,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await setHumanPassword(
          db,
          userRef(caller, req.userId),
          req.password,
          !req.noChangeRequired,
          caller.principal.userId,
          callerHash(hashing, caller),
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.sendHumanResetPasswordNotification,
      permission: orgOwner,
      async handle(caller, req) {
        await sendPasswordResetNotification(emails, userRef(caller, req.userId), req.type === ResetType.EMAIL);
        return {};
      },
    }),
  ];
}
