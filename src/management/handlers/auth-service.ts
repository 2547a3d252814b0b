// zitadel.auth.v1.AuthService: the caller's own user.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { GenderSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { ManagementDeps } from '../deps.ts';
import type { Gender } from '../../users/queries.ts';
import { getUserById, updateMyProfile } from '../../users/service.ts';
import { detailsMessage, enumName, userMessage } from '../convert.ts';
import { authenticated, operation, type Operation } from '../operation.ts';

export function authServiceOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: AuthService.method.updateMyProfile,
      permission: authenticated,
      async handle(caller, req) {
        const details = await updateMyProfile(db, caller.principal.userId, {
          firstName: req.firstName,
          lastName: req.lastName,
          nickName: req.nickName,
          displayName: req.displayName,
          preferredLanguage: req.preferredLanguage,
          gender: enumName<Gender>(GenderSchema, req.gender),
        });
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: AuthService.method.getMyUser,
      permission: authenticated,
      async handle(caller) {
        return { user: userMessage(await getUserById(db, caller.principal.userId)) };
      },
    }),
  ];
}
