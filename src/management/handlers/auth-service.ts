// zitadel.auth.v1.AuthService: the caller's own user (compat.md §1).
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { AccessTokenType, GenderSchema, UserState } from '@zitadel/proto/zitadel/user_pb.js';
import type { Db } from '../../platform/db.ts';
import type { Gender } from '../../users/queries.ts';
import { getUserById, updateMyProfile } from '../../users/service.ts';
import { loginName } from '../../users/lookup.ts';
import { detailsMessage, enumName, enumNumber, storedDetails } from '../convert.ts';
import { operation, type Operation } from '../operation.ts';

const authenticated = { kind: 'authenticated' } as const;

export function authServiceOperations(db: Db): Operation[] {
  return [
    operation({
      method: AuthService.method.updateMyProfile,
      permission: authenticated,
      async handle(caller, req) {
        const details = await updateMyProfile(db, caller.principal.userId, {
          firstName: req.firstName, lastName: req.lastName, nickName: req.nickName, displayName: req.displayName,
          preferredLanguage: req.preferredLanguage, gender: enumName<Gender>(GenderSchema, req.gender),
        });
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: AuthService.method.getMyUser,
      permission: authenticated,
      async handle(caller) {
        const u = await getUserById(db, caller.principal.userId);
        const type = u.type === 'human'
          ? {
            case: 'human' as const,
            value: {
              profile: {
                firstName: u.first_name ?? '', lastName: u.last_name ?? '', nickName: u.nick_name ?? '', displayName: u.display_name ?? '',
                preferredLanguage: u.preferred_language ?? '', gender: enumNumber(GenderSchema, u.gender ?? 'GENDER_UNSPECIFIED'),
              },
              email: { email: u.email ?? '', isEmailVerified: u.email_verified },
              phone: { phone: u.phone ?? '', isPhoneVerified: u.phone_verified },
            },
          }
          : {
            case: 'machine' as const,
            value: {
              name: u.machine_name ?? '', description: u.machine_description ?? '', hasSecret: u.secret_hash !== null,
              accessTokenType: u.access_token_type === 'jwt' ? AccessTokenType.JWT : AccessTokenType.BEARER,
            },
          };
        return {
          user: {
            id: u.id,
            details: storedDetails(u, u.org_id),
            state: u.state === 'active' ? UserState.ACTIVE : UserState.INACTIVE,
            userName: u.user_name,
            loginNames: [loginName(u)],
            preferredLoginName: loginName(u),
            type,
          },
        };
      },
    }),
  ];
}
