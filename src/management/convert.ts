// Shapes shared by the handlers: Details, stored enum names, users, orgs and keys as the v1 messages carry them.
import type { DescEnum, MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { KeyType } from '@zitadel/proto/zitadel/auth_n_key_pb.js';
import type { ObjectDetailsSchema } from '@zitadel/proto/zitadel/object_pb.js';
import { AccessTokenType, GenderSchema, UserState, type UserSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { Details } from '../events/details.ts';
import { loginName, type UserProfileRow, type UserRow } from '../users/lookup.ts';
import { OrgState, type OrgSchema } from '@zitadel/proto/zitadel/org_pb.js';
import type { OrgRow } from '../orgs/queries.ts';
import type { HumanInput } from '../passwords/new-human.ts';
import type { Gender, HumanProfile } from '../users/queries.ts';
import type { ListResult } from '../platform/search.ts';

export function detailsMessage(d: Details): MessageInitShape<typeof ObjectDetailsSchema> {
  return {
    sequence: BigInt(d.sequence),
    creationDate: d.creationDate && timestampFromDate(d.creationDate),
    changeDate: d.changeDate && timestampFromDate(d.changeDate),
    resourceOwner: d.resourceOwner,
  };
}

/** Details of a stored object as a read returns them: the last event's sequence and time. */
export function storedDetails(
  row: { sequence: string; created_at: Date; changed_at: Date },
  resourceOwner: string,
): MessageInitShape<typeof ObjectDetailsSchema> {
  return detailsMessage({
    sequence: row.sequence,
    creationDate: row.created_at,
    changeDate: row.changed_at,
    resourceOwner,
  });
}

/** Stored enums keep the proto value name (e.g. GENDER_FEMALE), which is also their JSON form. */
export function enumName<T extends string>(schema: DescEnum, value: number): T {
  return schema.values.find((v) => v.number === value)!.name as T;
}

export function enumNumber(schema: DescEnum, name: string): number {
  return schema.values.find((v) => v.name === name)?.number ?? 0;
}

const USER_STATES: Record<UserRow['state'], UserState> = {
  active: UserState.ACTIVE,
  inactive: UserState.INACTIVE,
  locked: UserState.LOCKED,
};

/** zitadel.user.v1.User: GetMyUser, GetUserByID and ListUsers (whose rows carry has_secret, not the hash). */
export function userMessage(
  u: UserProfileRow & ({ secret_hash: string | null } | { has_secret: boolean }),
): MessageInitShape<typeof UserSchema> {
  const type =
    u.type === 'human'
      ? {
          case: 'human' as const,
          value: {
            profile: {
              firstName: u.first_name ?? '',
              lastName: u.last_name ?? '',
              nickName: u.nick_name ?? '',
              displayName: u.display_name ?? '',
              preferredLanguage: u.preferred_language ?? '',
              gender: enumNumber(GenderSchema, u.gender ?? 'GENDER_UNSPECIFIED'),
            },
            email: { email: u.email ?? '', isEmailVerified: u.email_verified },
            phone: { phone: u.phone ?? '', isPhoneVerified: u.phone_verified },
          },
        }
      : {
          case: 'machine' as const,
          value: {
            name: u.machine_name ?? '',
            description: u.machine_description ?? '',
            hasSecret: 'has_secret' in u ? u.has_secret : u.secret_hash !== null,
            accessTokenType: u.access_token_type === 'jwt' ? AccessTokenType.JWT : AccessTokenType.BEARER,
          },
        };
  return {
    id: u.id,
    details: storedDetails(u, u.org_id),
    state: USER_STATES[u.state],
    userName: u.user_name,
    loginNames: [loginName(u)],
    preferredLoginName: loginName(u),
    type,
  };
}

export function orgMessage(org: OrgRow): MessageInitShape<typeof OrgSchema> {
  return {
    id: org.id,
    details: storedDetails(org, org.id),
    name: org.name,
    primaryDomain: org.primary_domain,
    state: org.state === 'active' ? OrgState.ACTIVE : OrgState.INACTIVE,
  };
}

/** A human's profile as SetUpOrg, ImportHumanUser, AddHumanUser, UpdateHumanProfile and UpdateMyProfile carry it. */
interface ProfileMembers {
  firstName: string;
  lastName: string;
  nickName: string;
  displayName: string;
  preferredLanguage: string;
  gender: number;
}

export function profileInput(p: ProfileMembers): HumanProfile {
  return {
    firstName: p.firstName,
    lastName: p.lastName,
    nickName: p.nickName,
    displayName: p.displayName,
    preferredLanguage: p.preferredLanguage,
    gender: enumName<Gender>(GenderSchema, p.gender),
  };
}

/** The human user of SetUpOrg and ImportHumanUser: the two requests carry the same members (validate.rules make
 *  profile and email present before a handler runs). */
interface HumanMembers {
  userName: string;
  profile?: ProfileMembers;
  email?: { email: string; isEmailVerified: boolean };
  phone?: { phone: string; isPhoneVerified: boolean };
  password: string;
}

export function humanInput(h: HumanMembers): HumanInput {
  return {
    userName: h.userName,
    profile: profileInput(h.profile!),
    email: h.email!.email,
    emailVerified: h.email!.isEmailVerified,
    phone: h.phone?.phone || null,
    phoneVerified: h.phone?.isPhoneVerified ?? false,
    password: h.password,
  };
}

/** keyDetails of AddMachineKey and AddAppKey: the key file's JSON as bytes (base64 in the JSON encoding), as ZITADEL
 *  returns it. */
export const keyDetails = (keyFile: object) => new TextEncoder().encode(JSON.stringify(keyFile));

/** zitadel.authn.v1.Key of ListMachineKeys and ListAppKeys: JSON key files, without their private part. */
export const keyMessages = (result: ListResult<{ id: string; expires_at: Date; created_at: Date }>, owner: string) =>
  result.rows.map((k) => ({
    id: k.id,
    details: storedDetails({ sequence: '0', created_at: k.created_at, changed_at: k.created_at }, owner),
    type: KeyType.JSON,
    expirationDate: timestampFromDate(k.expires_at),
  }));
