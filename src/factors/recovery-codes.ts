// Recovery codes: ten single-use codes that stand in for a second factor once each, for a user who has
// lost it. Shown once; stored as keyed hashes (HMAC under the master key), so the database alone cannot use them.
import { randomInt } from 'node:crypto';
import type { Db, Queryable } from '../platform/db.ts';
import type { SecretBox } from '../platform/secrets.ts';
import { consumeRecoveryCode, replaceRecoveryCodes } from './queries.ts';

const COUNT = 10;
// no 0/O, 1/I/L: read off paper
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const PURPOSE = 'recovery-code:';

/** A code as shown: 10 characters in two groups (about 50 bits; each is tried against the lockout). */
function newCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** The code as typed: case, spaces and dashes do not matter. */
const normalized = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

const keyedHash = (secrets: SecretBox, userId: string, code: string) =>
  secrets.hashSecret(`${PURPOSE}${userId}:${normalized(code)}`);

/** Replaces the user's codes with ten new ones and returns them, in the caller's transaction. */
export async function issueRecoveryCodes(tx: Queryable, secrets: SecretBox, userId: string): Promise<string[]> {
  const codes = Array.from({ length: COUNT }, newCode);
  await replaceRecoveryCodes(
    tx,
    userId,
    codes.map((code) => keyedHash(secrets, userId, code)),
  );
  return codes;
}

/** New codes in a transaction of their own (the account page). */
export function renewRecoveryCodes(db: Db, secrets: SecretBox, userId: string): Promise<string[]> {
  return db.tx((tx) => issueRecoveryCodes(tx, secrets, userId));
}

/** Uses a code: true once per code. */
export function useRecoveryCode(db: Db, secrets: SecretBox, userId: string, code: string): Promise<boolean> {
  const typed = normalized(code);
  if (typed.length !== 10) return Promise.resolve(false);
  return consumeRecoveryCode(db, userId, keyedHash(secrets, userId, typed));
}
