// E-mail addresses on the auth and management services: a user changes and verifies its own (after a recent
// sign-in, recent-login.ts), an org owner sets a user's; either has the verification mail sent again.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { changeEmail, resendEmailVerification, verifyEmail } from '../../emails/service.ts';
import { detailsMessage } from '../convert.ts';
import { requireRecentLogin } from '../recent-login.ts';
import { authenticated, operation, orgOwner, type Caller, type Operation } from '../operation.ts';
import { userRef } from './users.ts';

export function emailOperations({ db, secrets, mailer }: ManagementDeps): Operation[] {
  const emails = { db, secrets, mailer };
  const ownUser = (caller: Caller) => ({ userId: caller.principal.userId });
  return [
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
          userRef(caller, req.userId),
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
        const details = await resendEmailVerification(emails, userRef(caller, req.userId), caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
