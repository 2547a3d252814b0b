// Accounts people manage, on the three services: the password complexity policy (admin, and read by
// users and org owners), password changes and resets, and e-mail addresses with their verification.
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
import { changeEmail, resendEmailVerification, verifyEmail } from '../../emails/service.ts';
import { detailsMessage } from '../convert.ts';
import { requireRecentLogin } from '../recent-login.ts';
import { authenticated, callerHash, iamOwner, operation, orgOwner, type Caller, type Operation } from '../operation.ts';

export function accountOperations(deps: ManagementDeps): Operation[] {
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
  const ownUser = (caller: Caller) => ({ userId: caller.principal.userId });
  const orgUser = (caller: Caller, userId: string) => ({ userId, orgId: caller.orgId });

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
          orgUser(caller, req.userId),
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
        await sendPasswordResetNotification(emails, orgUser(caller, req.userId), req.type === ResetType.EMAIL);
        return {};
      },
    }),
    operation({
      method: AuthService.method.setMyEmail,
      permission: authenticated,
      async handle(caller, req) {
        requireRecentLogin(caller);
        // the previous verified address is told, as on the account page: its owner learns of a change not theirs
        const details = await changeEmail(
          emails,
          ownUser(caller),
          { field: 'SetMyEmailRequest.Email', email: req.email, verified: false, notifyPrevious: true },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: AuthService.method.verifyMyEmail,
      permission: authenticated,
      async handle(caller, req) {
        return { details: detailsMessage(await verifyEmail(emails, caller.principal.userId, req.code)) };
      },
    }),
    operation({
      method: AuthService.method.resendMyEmailVerification,
      permission: authenticated,
      async handle(caller) {
        const details = await resendEmailVerification(emails, ownUser(caller), caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.updateHumanEmail,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await changeEmail(
          emails,
          orgUser(caller, req.userId),
          { field: 'UpdateHumanEmailRequest.Email', email: req.email, verified: req.isEmailVerified },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.resendHumanEmailVerification,
      permission: orgOwner,
      async handle(caller, req) {
        const details = await resendEmailVerification(emails, orgUser(caller, req.userId), caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
