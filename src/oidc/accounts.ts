// oidc-provider accounts are our users; claims by scope as ZITADEL's userinfo gives them. oidc-provider masks the
// claims by the granted scopes (the `claims` configuration in provider.ts).
import type { Account, KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../platform/db.ts';
import { findActiveUser, loginName, type UserProfileRow } from '../users/lookup.ts';
import { takeScoped } from '../platform/request-scope.ts';
import { USER_AHEAD } from './read-ahead.ts';
import { RESOURCE_OWNER_SCOPE } from './scopes.ts';

export const CLAIMS = {
  // amr: how the user signed in (RFC 8176), in every ID token as ZITADEL's; no account has it as a claim
  openid: ['sub', 'amr'],
  profile: ['name', 'given_name', 'family_name', 'nickname', 'gender', 'locale', 'updated_at', 'preferred_username'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
  [RESOURCE_OWNER_SCOPE]: [
    `${RESOURCE_OWNER_SCOPE}:id`,
    `${RESOURCE_OWNER_SCOPE}:name`,
    `${RESOURCE_OWNER_SCOPE}:primary_domain`,
  ],
};

const GENDERS: Record<string, string> = { GENDER_FEMALE: 'female', GENDER_MALE: 'male', GENDER_DIVERSE: 'diverse' };

export function createFindAccount(db: Db) {
  return async function findAccount(ctx: KoaContextWithOIDC, sub: string): Promise<Account | undefined> {
    const ahead = takeScoped(USER_AHEAD, sub);
    const user = ahead ? ahead.value : await findActiveUser(db, sub);
    if (user?.state !== 'active') return undefined;
    return {
      accountId: user.id,
      async claims(use, scope) {
        // Without "user info inside ID token", an ID token issued next to an access token carries only sub (as ZITADEL
        // documents its authorization endpoint; the app's idTokenUserinfoAssertion).
        if (use === 'id_token' && issuesAccessToken(ctx) && !ctx.oidc.client?.['id_token_userinfo_assertion' as never])
          return { sub: user.id };
        return { ...userClaims(user, new Set(scope.split(' '))), sub: user.id };
      },
    };
  };
}

function issuesAccessToken(ctx: KoaContextWithOIDC): boolean {
  return (
    ctx.oidc.route === 'token' ||
    String(ctx.oidc.params?.response_type ?? '')
      .split(' ')
      .includes('token')
  );
}

export function userClaims(user: UserProfileRow, scopes: ReadonlySet<string>): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    sub: user.id,
    preferred_username: loginName(user),
    updated_at: Math.floor(user.changed_at.getTime() / 1000),
  };
  if (user.type === 'machine') {
    claims.name = user.machine_name;
  } else {
    Object.assign(claims, {
      name: user.display_name,
      given_name: user.first_name,
      family_name: user.last_name,
      ...(user.nick_name ? { nickname: user.nick_name } : {}),
      ...(user.gender && GENDERS[user.gender] ? { gender: GENDERS[user.gender] } : {}),
      ...(user.preferred_language ? { locale: user.preferred_language } : {}),
      email: user.email,
      email_verified: user.email_verified,
      ...(user.phone ? { phone_number: user.phone, phone_number_verified: user.phone_verified } : {}),
    });
  }
  if (scopes.has(RESOURCE_OWNER_SCOPE)) {
    Object.assign(claims, {
      [`${RESOURCE_OWNER_SCOPE}:id`]: user.org_id,
      [`${RESOURCE_OWNER_SCOPE}:name`]: user.org_name,
      [`${RESOURCE_OWNER_SCOPE}:primary_domain`]: user.primary_domain,
    });
  }
  return claims;
}

/** The claims of the given scopes only (introspection adds them itself, as ZITADEL's does). */
export function claimsForScopes(claims: Record<string, unknown>, scopes: ReadonlySet<string>): Record<string, unknown> {
  const allowed = new Set<string>();
  for (const [scope, names] of Object.entries(CLAIMS)) {
    if (scopes.has(scope)) for (const name of names) allowed.add(name);
  }
  return Object.fromEntries(Object.entries(claims).filter(([k, v]) => allowed.has(k) && v !== undefined && v !== null));
}
