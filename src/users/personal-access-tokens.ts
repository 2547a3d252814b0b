// Personal access tokens of machine users (ZITADEL's AddPersonalAccessToken and its siblings, command/
// user_personal_access_token.go): an opaque bearer token, shown once, that acts as its machine user until its
// expiration date or its removal. Only the token's SHA-256 is stored, the storage id every access token has
// (platform/storage-id.ts): the OIDC layer finds a presented token by it (oidc/queries.ts accessTokenLookup), with
// the same checks as the user's other tokens, read on every request.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { hashId } from '../platform/storage-id.ts';
import { failedPrecondition, invalidArgument, notFound } from '../platform/errors.ts';
import { Conditions, creationOrder, listPage, type ListResult, type Page } from '../platform/search.ts';
import { KEY_NO_EXPIRY } from '../platform/key-pairs.ts';
import type { UserRef } from './service.ts';
import { findUserById } from './queries.ts';

/** Every token starts with this, so a leaked one is recognisable (secret scanners, logs); 256 random bits follow. */
export const PERSONAL_ACCESS_TOKEN_PREFIX = 'gatehouse_pat_';

/** A token as lists show it: never its value (which is not stored). */
export interface PersonalAccessTokenRow {
  id: string;
  scope: string;
  expires_at: Date;
  created_at: Date;
  sequence: string;
}

/**
 * A new token for a machine user of the org in context, valid until `expiresAt` (ZITADEL: none means 9999-12-31,
 * one in the past is refused). A user that does not exist or belongs to another org, and a human, are refused as
 * ZITADEL refuses them (precondition failed: PATs are for machine users only). The token is returned once.
 */
export async function addPersonalAccessToken(
  db: Db,
  ref: UserRef,
  input: { expiresAt: Date | undefined; scopes: readonly string[] },
  creator: string,
): Promise<{ tokenId: string; token: string; expiresAt: Date; details: Details }> {
  const expiresAt = input.expiresAt ?? KEY_NO_EXPIRY;
  if (!(expiresAt.getTime() > Date.now()))
    throw invalidArgument(
      'invalid AddPersonalAccessTokenRequest.ExpirationDate: must be in the future',
      'DOMAIN-dv3t5',
    );
  const user = await findUserById(db, ref.userId);
  if (user?.org_id !== ref.orgId) throw failedPrecondition('User could not be found', 'COMMAND-Dggw2');
  if (user.type !== 'machine') throw failedPrecondition('User type is not allowed', 'COMMAND-Df2f1');
  const tokenId = newId();
  const token = PERSONAL_ACCESS_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const scope = input.scopes.join(' ');
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.personalAccessTokenAdded,
      payload: { tokenId, expiration: expiresAt.toISOString(), scopes: input.scopes },
      resourceOwner: user.org_id,
      creator,
    });
    await tx.query(
      `INSERT INTO personal_access_tokens (id, user_id, token_hash, scope, expires_at, created_at, sequence)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [tokenId, user.id, hashId(token), scope, expiresAt, event.createdAt, event.sequence],
    );
    return { tokenId, token, expiresAt, details: createdDetails(event) };
  });
}

/** Ends the token: the next request that presents it fails on every node (the lookup reads the table each time). */
export async function removePersonalAccessToken(db: Db, ref: UserRef, tokenId: string, creator: string) {
  return db.tx(async (tx): Promise<Details> => {
    const { rows } = await tx.query<{ user_id: string }>(
      `DELETE FROM personal_access_tokens p USING users u
       WHERE p.id = $1 AND p.user_id = $2 AND u.id = p.user_id AND u.org_id = $3 RETURNING p.user_id`,
      [tokenId, ref.userId, ref.orgId],
    );
    if (!rows[0]) throw patNotFound();
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: ref.userId,
      eventType: EVENT.user.personalAccessTokenRemoved,
      payload: { tokenId },
      resourceOwner: ref.orgId,
      creator,
    });
    return changedDetails(event);
  });
}

// ZITADEL's RemovePersonalAccessToken of a token it does not know (command/user_personal_access_token.go)
const patNotFound = () => notFound('Personal Access Token not found', 'COMMAND-4m77G');

const tokensOf = (ref: UserRef) =>
  new Conditions()
    .add('p.user_id = ?', ref.userId)
    .add('EXISTS (SELECT 1 FROM users u WHERE u.id = p.user_id AND u.org_id = ?)', ref.orgId);

const COLUMNS = 'p.id, p.scope, p.expires_at, p.created_at, p.sequence::text AS sequence';

/** The user's tokens in the order they were made; a user of another org has none here (ZITADEL filters by the org
 *  in context rather than refusing). */
export function listPersonalAccessTokens(
  db: Db,
  ref: UserRef,
  page: Page,
): Promise<ListResult<PersonalAccessTokenRow>> {
  return listPage(
    db,
    { select: COLUMNS, from: 'personal_access_tokens p', where: tokensOf(ref), orderBy: ['p.created_at', 'p.id'] },
    creationOrder(page),
  );
}

export async function getPersonalAccessToken(
  db: Queryable,
  ref: UserRef,
  tokenId: string,
): Promise<PersonalAccessTokenRow> {
  const where = tokensOf(ref).add('p.id = ?', tokenId);
  const { rows } = await db.query<PersonalAccessTokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens p ${where.sql}`,
    where.params,
  );
  // ZITADEL's PersonalAccessTokenByID (query/user_personal_access_token.go)
  if (!rows[0]) throw notFound('Personal Access Token not found', 'QUERY-fRunu');
  return rows[0];
}
