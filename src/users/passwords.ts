// Password hashing with argon2id at OWASP/ASVS parameters (security.md §15: m=19 MiB, t=2, p=1). @node-rs/argon2
// runs the hash on libuv's thread pool, off the event loop.
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id of @node-rs/argon2, whose const enum cannot be imported under verbatimModuleSyntax.
const ARGON2ID = 2;

const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

// How many hashes run at once: one per core, and never more than three. libuv's pool (four threads unless
// UV_THREADPOOL_SIZE says otherwise) also runs the RS256 signatures of the token endpoint and file I/O, first come
// first served: during a burst of logins, hashes queued there held an ID token's signature back for about 200 ms on
// two cores (issue 8), so further hashes wait here and a pool thread stays free. More hashes than cores add no
// throughput (measured on two cores: 2, 3 and 4 at once verify as many per second), only 19 MiB of memory each.
// Known and unknown users queue alike (security.md §16).
export const HASH_CONCURRENCY = Math.min(3, availableParallelism());
let running = 0;
const queued: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running < HASH_CONCURRENCY) running++;
  else await new Promise<void>((resolve) => queued.push(resolve));
  try {
    return await work();
  } finally {
    // the slot passes to the next waiter as it is, or is given back
    const next = queued.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(() => hash(password, PARAMS));
}

export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  try {
    return await limited(() => verify(passwordHash, password));
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
