// User metadata: key/value pairs of a user of the org in context, set and removed through the management API and
// returned by the scope urn:zitadel:iam:user:metadata. Values are bytes (base64 in JSON, as ZITADEL's Metadata message
// carries them).
import { z } from 'zod';
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { notFound, precondition } from '../platform/errors.ts';
import { parseInput } from '../platform/input.ts';
import { listPage, Conditions, type ListResult, type Page, type TextFilter } from '../platform/search.ts';
import { getOrgUser, type UserRef } from '../users/service.ts';
import { deleteMetadata, findAllMetadata, findMetadata, upsertMetadata, type MetadataRow } from './queries.ts';

export type { MetadataRow };

// ZITADEL's limits (SetUserMetadataRequest): key 1..200 runes, value 1..500000 bytes.
const KEY = 'value length must be between 1 and 200 runes, inclusive';
const VALUE = 'value length must be between 1 and 500000 bytes, inclusive';
const entrySchema = z.object({
  key: z.string().min(1, KEY).max(200, KEY),
  value: z.instanceof(Uint8Array).refine((v) => v.length >= 1 && v.length <= 500_000, VALUE),
});
const entriesSchema = z.object({ metadata: z.array(entrySchema).min(1, 'value must contain at least 1 item(s)') });

export const metadataNotFound = (id = 'META-Ekfsd') => notFound('Metadata not found', id);

/** The user whose metadata a command sets or removes: missing (or another org's), FAILED_PRECONDITION as ZITADEL's
 *  SetUserMetadata and RemoveUserMetadata answer it (command/user_metadata.go, checkUserExists in command/user.go);
 *  reading the metadata of such a user is NOT_FOUND, as a query. */
const userOfCommand = (tx: Queryable, ref: UserRef) =>
  precondition(getOrgUser(tx, ref), 'User could not be found', 'COMMAND-uXHNj');

/** SetUserMetadata and BulkSetUserMetadata: every entry or none, in one transaction. */
export async function setUserMetadata(
  db: Db,
  ref: UserRef,
  input: { metadata: { key: string; value: Uint8Array }[] },
  request: string,
  creator: string,
): Promise<Details> {
  const { metadata } = parseInput(entriesSchema, input, request, 'META-Inv4l');
  const byKey = new Map(metadata.map((m) => [m.key, m.value])); // the last value of a key given twice wins
  return db.tx(async (tx) => {
    const user = await userOfCommand(tx, ref);
    const entries = [...byKey].map(([key, value]) => ({ key, value }));
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.metadataSet,
      payload: { keys: entries.map((e) => e.key) },
      resourceOwner: user.org_id,
      creator,
    });
    await upsertMetadata(tx, user.id, entries, event.sequence, event.createdAt);
    return changedDetails(event);
  });
}

export async function getUserMetadata(db: Db, ref: UserRef, key: string): Promise<MetadataRow> {
  const user = await getOrgUser(db, ref);
  const found = await findMetadata(db, user.id, key);
  if (!found) throw metadataNotFound();
  return found;
}

export async function removeUserMetadata(db: Db, ref: UserRef, key: string, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    const user = await userOfCommand(tx, ref);
    if (!(await findMetadata(tx, user.id, key))) throw metadataNotFound('META-ncnw3'); // RemoveUserMetadata's
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType: EVENT.user.metadataRemoved,
      payload: { key },
      resourceOwner: user.org_id,
      creator,
    });
    await deleteMetadata(tx, user.id, key);
    return changedDetails(event);
  });
}

/** ListUserMetadata, optionally by key (MetadataKeyQuery). */
export async function listUserMetadata(
  db: Db,
  ref: UserRef,
  key: TextFilter | undefined,
  page: Page,
): Promise<ListResult<MetadataRow>> {
  const user = await getOrgUser(db, ref);
  const where = new Conditions().add('m.user_id = ?', user.id);
  if (key) where.text('m.key', key);
  return listPage<MetadataRow>(
    db,
    {
      select: 'm.user_id, m.key, m.value, m.created_at, m.changed_at, m.sequence',
      from: 'user_metadata m',
      where,
      orderBy: ['m.key'],
    },
    page,
  );
}

/** The user's metadata as the claim carries it: key → value, base64url without padding (ZITADEL's encoding). */
export async function metadataClaim(db: Queryable, userId: string): Promise<Record<string, string> | undefined> {
  const rows = await findAllMetadata(db, userId);
  if (!rows.length) return undefined;
  return Object.fromEntries(rows.map((r) => [r.key, Buffer.from(r.value).toString('base64url')]));
}
