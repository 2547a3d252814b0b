// Password hashing with argon2id at OWASP/ASVS parameters (security.md §15: m=19 MiB, t=2, p=1). @node-rs/argon2
// runs the hash on a worker thread, off the event loop.
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id of @node-rs/argon2, whose const enum cannot be imported under verbatimModuleSyntax.
const ARGON2ID = 2;

const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash never authenticates
  }
}

// A fixed hash to verify against when the user does not exist, so unknown users and wrong passwords cost the same
// time (security.md §16).
let decoy: Promise<string> | undefined;
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword('decoy password that never matches');
  await verifyPassword(password, await decoy);
  return false;
}
