// Shapes shared by the handlers: Details and stored enum names as the v1 messages carry them.
import type { DescEnum, MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ObjectDetailsSchema } from '@zitadel/proto/zitadel/object_pb.js';
import { AccessTokenType, GenderSchema, UserState, type UserSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { Details } from '../events/details.ts';
import { loginName, type UserRow } from '../users/lookup.ts';

export function detailsMessage(d: Details): MessageInitShape<typeof ObjectDetailsSchema> {
  return {
    sequence: BigInt(d.sequence),
    creationDate: d.creationDate && timestampFromDate(d.creationDate),
    changeDate: d.changeDate && timestampFromDate(d.changeDate),
    resourceOwner: d.resourceOwner,
  };
}

/** Details of a stored object as a read returns them (interface.md "Details object", "On read"). */
export function storedDetails(row: { sequence: string; created_at: Date; changed_at: Date }, resourceOwner: string): MessageInitShape<typeof ObjectDetailsSchema> {
  return detailsMessage({ sequence: row.sequence, creationDate: row.created_at, changeDate: row.changed_at, resourceOwner });
}

/** Stored enums keep the proto value name (e.g. GENDER_FEMALE), which is also their JSON form. */
export function enumName<T extends string>(schema: DescEnum, value: number): T {
  return schema.values.find((v) => v.number === value)!.name as T;
}

export function enumNumber(schema: DescEnum, name: string): number {
  return schema.values.find((v) => v.name === name)?.number ?? 0;
}

/** zitadel.user.v1.User: GetMyUser and GetUserByID. */
export function userMessage(u: UserRow): MessageInitShape<typeof UserSchema> {
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
    id: u.id,
    details: storedDetails(u, u.org_id),
    state: u.state === 'active' ? UserState.ACTIVE : UserState.INACTIVE,
    userName: u.user_name,
    loginNames: [loginName(u)],
    preferredLoginName: loginName(u),
    type,
  };
}
