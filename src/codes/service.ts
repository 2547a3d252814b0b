// One-time codes sent by mail: e-mail verification and password reset. A code is 8 characters from an alphabet without
// look-alikes (40 bits), shown in the mail and carried by its link; only a keyed hash is stored (a copy of the database
// shows none). It is valid for an hour, used once, and dies after MAX_TRIES wrong tries, so guessing it is hopeless;
// each user may be sent MAX_CODES_PER_HOUR codes of a purpose per hour.
import { randomInt } from 'node:crypto';
import type { Queryable } from '../platform/db.ts';
import { newId } from '../platform/ids.ts';
import type { SecretBox } from '../platform/secrets.ts';
import {
  type CodePurpose,
  codesSentLastHour,
  countFailedTry,
  lockValidCode,
  markCodeUsed,
  replaceCode,
} from './queries.ts';

export type { CodePurpose };

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const LENGTH = 8;
export const CODE_TTL_SECONDS = 3600;
const MAX_TRIES = 5;
export const MAX_CODES_PER_HOUR = 5;

/** The keyed hash binds the code to its user and purpose: a stored hash verifies nothing else. */
const hashed = (userId: string, purpose: CodePurpose, code: string) => `user-code:${purpose}:${userId}:${code}`;

/** Codes are typed by people: case and separators do not matter. */
export const normalizeCode = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

export async function issueCode(
  tx: Queryable,
  secrets: SecretBox,
  input: { userId: string; purpose: CodePurpose; email?: string },
): Promise<string> {
  const code = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  await replaceCode(tx, {
    id: newId(),
    userId: input.userId,
    purpose: input.purpose,
    codeHash: secrets.hashSecret(hashed(input.userId, input.purpose, code)),
    email: input.email ?? null,
    ttl: CODE_TTL_SECONDS,
  });
  return code;
}

export async function mayIssueCode(db: Queryable, userId: string, purpose: CodePurpose): Promise<boolean> {
  return (await codesSentLastHour(db, userId, purpose)) < MAX_CODES_PER_HOUR;
}

/** Uses the user's valid code when `presented` matches it: the code row (with the address it verifies), else
 *  undefined (no code, expired, used, or wrong; a wrong try is counted). Run in the transaction of the change the
 *  code allows, so the code is used exactly when the change commits; on undefined the caller commits (so the try
 *  stays counted) and reports the failure after the transaction. */
export async function useCode(
  tx: Queryable,
  secrets: SecretBox,
  input: { userId: string; purpose: CodePurpose; presented: string },
): Promise<{ email: string | null } | undefined> {
  const row = await lockValidCode(tx, input.userId, input.purpose);
  if (!row || row.attempts >= MAX_TRIES) return undefined;
  const presented = normalizeCode(input.presented);
  if (!presented || !secrets.verifySecret(hashed(input.userId, input.purpose, presented), row.code_hash)) {
    await countFailedTry(tx, row.id);
    return undefined;
  }
  await markCodeUsed(tx, row.id);
  return { email: row.email };
}
