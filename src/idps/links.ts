// External identities linked to users: looked up at sign-in with a JWT IdP, created by auto-registration or when a
// signed-in user links one.
import type { JWTPayload } from 'jose';
import type { Db, Queryable } from '../platform/db.ts';
import { newId } from '../platform/ids.ts';
import { createHuman } from '../users/human-service.ts';
import { userNameTaken } from '../users/queries.ts';
import { checkUserName } from '../users/user-name.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { notFound } from '../platform/errors.ts';
import { listPage, Conditions, type ListResult, type Page } from '../platform/search.ts';
import { getOrgUser, type UserRef } from '../users/service.ts';

export interface ExternalIdentity {
  idpId: string;
  /** The token's `sub`. */
  externalUserId: string;
  displayName: string;
}

const NAME_MAX = 200;

export async function findLinkedUserId(db: Queryable, idpId: string, externalUserId: string): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>(
    'SELECT user_id FROM user_idp_links WHERE idp_id = $1 AND external_user_id = $2',
    [idpId, externalUserId],
  );
  return rows[0]?.user_id ?? null;
}

/** Links the identity to the user, with the user's event (ZITADEL: user.human.externalidp.added). */
export async function linkIdentity(tx: Queryable, userId: string, orgId: string, identity: ExternalIdentity) {
  await appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: userId,
    eventType: EVENT.user.idpLinkAdded,
    payload: { idpConfigId: identity.idpId, userId: identity.externalUserId, displayName: identity.displayName },
    resourceOwner: orgId,
    creator: userId,
  });
  await tx.query(
    `INSERT INTO user_idp_links (idp_id, external_user_id, user_id, display_name) VALUES ($1, $2, $3, $4)`,
    [identity.idpId, identity.externalUserId, userId, identity.displayName],
  );
}

const claim = (claims: JWTPayload, name: string): string => {
  const value = claims[name];
  return typeof value === 'string' ? value.trim().slice(0, NAME_MAX) : '';
};

/** The display name a link keeps: what the token says about the person, else its `sub`. */
export const identityDisplayName = (claims: JWTPayload, sub: string) =>
  claim(claims, 'name') || claim(claims, 'preferred_username') || claim(claims, 'email') || sub.slice(0, NAME_MAX);

/** A user name nobody has and that reads as nothing else (users/user-name.ts): the token's preferred_username,
 *  email or sub, with a random suffix when taken or refused. */
async function freeUserName(db: Queryable, claims: JWTPayload, sub: string): Promise<string> {
  const wanted = claim(claims, 'preferred_username') || claim(claims, 'email') || sub.slice(0, NAME_MAX);
  for (const name of [wanted, `${wanted.replace(/@/g, '_')}-${newId().slice(-6)}`]) {
    const usable = await checkUserName(db, name, 'userName').then(
      () => true,
      () => false,
    );
    if (usable && !(await userNameTaken(db, name))) return name;
  }
  return `idp-${newId()}`;
}

/** The IdP's autoRegister: a human without a password in `orgId`, from the token's claims, linked. */
export async function registerFromIdentity(
  db: Db,
  orgId: string,
  identity: ExternalIdentity,
  claims: JWTPayload,
): Promise<string> {
  const userName = await freeUserName(db, claims, identity.externalUserId);
  const firstName = claim(claims, 'given_name') || claim(claims, 'name') || userName;
  const lastName = claim(claims, 'family_name') || firstName;
  const userId = newId();
  await db.tx(async (tx) => {
    await createHuman(
      tx,
      {
        id: userId,
        orgId,
        userName,
        profile: {
          firstName,
          lastName,
          nickName: '',
          displayName: claim(claims, 'name') || `${firstName} ${lastName}`,
          preferredLanguage: claim(claims, 'locale').slice(0, 10),
          gender: 'GENDER_UNSPECIFIED',
        },
        email: claim(claims, 'email'),
        emailVerified: claims.email_verified === true && claim(claims, 'email') !== '',
        phone: null,
        phoneVerified: false,
        passwordHash: null,
      },
      userId,
      EVENT.user.humanSelfRegistered,
    );
    await linkIdentity(tx, userId, orgId, identity);
  });
  return userId;
}

export interface LinkRow {
  user_id: string;
  idp_id: string;
  idp_name: string;
  external_user_id: string;
  display_name: string;
}

/** ListHumanLinkedIDPs: the links of a user of the caller's org, by IdP name. */
export async function listUserLinks(db: Db, ref: UserRef, page: Page): Promise<ListResult<LinkRow>> {
  const user = await getOrgUser(db, ref);
  return listPage<LinkRow>(
    db,
    {
      select: 'l.user_id, l.idp_id, i.name AS idp_name, l.external_user_id, l.display_name',
      from: 'user_idp_links l JOIN idps i ON i.id = l.idp_id',
      where: new Conditions().add('l.user_id = ?', user.id),
      orderBy: ['i.name', 'l.idp_id'],
    },
    page,
  );
}

/** The links of an IdP with their users' orgs, for the events of its removal. */
export async function linksOfIdp(
  tx: Queryable,
  idpId: string,
): Promise<{ user_id: string; org_id: string; external_user_id: string }[]> {
  const { rows } = await tx.query<{ user_id: string; org_id: string; external_user_id: string }>(
    `SELECT l.user_id, u.org_id, l.external_user_id FROM user_idp_links l JOIN users u ON u.id = l.user_id
      WHERE l.idp_id = $1 ORDER BY l.user_id`,
    [idpId],
  );
  return rows;
}

/** RemoveHumanLinkedIDP: the identity no longer signs the user in (ZITADEL: user.human.externalidp.removed). */
export async function removeUserLink(
  db: Db,
  ref: UserRef & { idpId: string; externalUserId: string },
  editor: string,
): Promise<Details> {
  return db.tx(async (tx) => {
    const user = await getOrgUser(tx, ref);
    const { rowCount } = await tx.query(
      'DELETE FROM user_idp_links WHERE user_id = $1 AND idp_id = $2 AND external_user_id = $3',
      [user.id, ref.idpId, ref.externalUserId],
    );
    if (!rowCount) throw notFound('External IDP not found', 'COMMAND-1M9xR');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.idpLinkRemoved,
      payload: { idpConfigId: ref.idpId, userId: ref.externalUserId },
      resourceOwner: user.org_id,
      creator: editor,
    });
    return changedDetails(event);
  });
}
