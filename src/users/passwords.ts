// Password hashing with argon2id at OWASP/ASVS parameters (security.md §15: m=19 MiB, t=2, p=1). @node-rs/argon2
// runs the hash on a worker thread, off the event loop.
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id of @node-rs/argon2, whose const enum cannot be imported under verbatimModuleSyntax.
const ARGON2ID = 2;

const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

// Each hash fills 19 MiB for its whole run and keeps a core busy: more hashes at once than cores add memory and
// latency, not throughput. Unbounded, @node-rs/argon2 runs as many as libuv has pool threads (4), and they hold
// the pool that file and DNS work share (issue 8: measured on the login and SetUpOrg scenarios).
const SLOTS = availableParallelism();
let running = 0;
const queue: (() => void)[] = [];

async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running < SLOTS) running++;
  else await new Promise<void>((resolve) => queue.push(resolve)); // the finishing hash hands its slot over
  try {
    return await work();
  } finally {
    const next = queue.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return bounded(() => hash(password, PARAMS));
}

export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  try {
    return await bounded(() => verify(passwordHash, password));
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
