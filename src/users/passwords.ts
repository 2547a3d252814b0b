// Password hashing with argon2id at OWASP/ASVS parameters (m=19 MiB, t=2, p=1). @node-rs/argon2
// runs the hash on libuv's thread pool, off the event loop.
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { AppError, Code } from '../platform/errors.ts';

// Algorithm.Argon2id of @node-rs/argon2, whose const enum cannot be imported under verbatimModuleSyntax.
const ARGON2ID = 2;

const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

// How many hashes run at once: one per core, and never more than three. libuv's pool (four threads unless
// UV_THREADPOOL_SIZE says otherwise) also runs the RS256 signatures of the token endpoint and file I/O, first come
// first served: during a burst of logins, hashes queued there held an ID token's signature back for about 200 ms on
// two cores, so further hashes wait here and a pool thread stays free. More hashes than cores add no
// throughput (measured on two cores: 2, 3 and 4 at once verify as many per second), only 19 MiB of memory each.
// Known and unknown users queue alike, so the wait reveals no user name. One gate per process: the cores are the
// process's.
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

/** Unbounded: for trusted callers only (start-up, the CLI). Requests from the network go through a HashAdmission. */
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
// time: timing reveals no user name.
let decoy: Promise<string> | undefined;
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword('decoy password that never matches');
  await verifyPassword(password, await decoy);
  return false;
}

/** Seconds a shed request is told to wait (Retry-After): hashes take milliseconds, the queue empties quickly. */
export const HASHING_RETRY_AFTER = 1;

/** A request refused a place in the hashing queue, not queued. Which bound refused it decides the answer: the
 *  client's own excess is not the server's failure (429, not 503). */
export abstract class HashRefusal extends AppError {
  override readonly retryAfter = HASHING_RETRY_AFTER;
  /** The HTTP status of the refusal, for the pages (the API maps the gRPC code). */
  abstract readonly status: 429 | 503;
}

/** The server's own overload: the places of all addresses together are taken. 503 with Retry-After (RFC 9110
 *  §15.6.4), UNAVAILABLE on gRPC. */
export class HashingBusy extends HashRefusal {
  readonly status = 503;
  constructor() {
    super(Code.Unavailable, 'Too many password checks in progress; retry shortly', 'USER-hash-busy');
  }
}

/** One client address (or API caller) holds all the places its share allows: its own excess, answered as a rate
 *  limit, 429 with Retry-After (RFC 6585 §4), RESOURCE_EXHAUSTED on gRPC as ZITADEL answers its limits. A 503 here
 *  would let any address raise an outage alert and have clients retry it as a server fault. */
export class HashingShareTaken extends HashRefusal {
  readonly status = 429;
  constructor() {
    super(
      Code.ResourceExhausted,
      'Too many password checks from this client at once; retry shortly',
      'USER-hash-share',
    );
  }
}

export interface HashLimits {
  /** Places per client address or API caller (each a request that hashes, in progress). The map of them is as
   *  bounded as the places. */
  readonly perAddress: number;
  /** Places taken beyond the hashes that run at once (HASH_CONCURRENCY), all addresses together. */
  readonly queue: number;
}

/** A place in the hashing queue, taken before any other work of a request; its methods use it (as many times as
 *  it was admitted for), or release gives it back. */
export interface HashSlot {
  hash(password: string): Promise<string>;
  verify(password: string, passwordHash: string): Promise<boolean>;
  verifyDecoy(password: string): Promise<false>;
  /** Gives the place back unused (the request ended before its hash). */
  release(): void;
}

/**
 * Admission to the hashing gate for network requests. An unbounded FIFO let one address queue
 * hundreds of hashes (about 12 ms of a core each) in front of everyone else's login; here each address may hold
 * `perAddress` places and all together HASH_CONCURRENCY + `queue`, and whatever is over that is refused at once, so
 * a legitimate login waits behind a bounded number of hashes. A request takes its place before its other work.
 */
export class HashAdmission {
  readonly #limits: HashLimits;
  readonly #perKey = new Map<string, number>();
  #inFlight = 0;
  /** Hashes run, requests shed by the global bound (the server's overload) and requests refused over their
   *  address's share (the client's own excess), for tests and metrics; kept apart so that one
   *  address cannot raise the overload figure. */
  readonly stats = { hashed: 0, shed: 0, overShare: 0 };

  constructor(limits: HashLimits) {
    this.#limits = limits;
  }

  /** Takes a place for `key` (the client address, or the API caller), or says which bound refused it. `uses`: the
   *  hashes the request runs in this one place (a password change verifies the old password and hashes the new
   *  one), so that it is never refused half-way, after the old password was accepted. */
  tryAdmit(key: string, uses = 1): HashSlot | HashRefusal {
    const mine = this.#perKey.get(key) ?? 0;
    // the address's own share first: an address over it is refused as such even while the queue is full
    if (mine >= this.#limits.perAddress) {
      this.stats.overShare++;
      return new HashingShareTaken();
    }
    if (this.#inFlight >= HASH_CONCURRENCY + this.#limits.queue) {
      this.stats.shed++;
      return new HashingBusy();
    }
    this.#perKey.set(key, mine + 1);
    this.#inFlight++;
    let open = true;
    let left = uses;
    const release = () => {
      if (!open) return;
      open = false;
      this.#inFlight--;
      const left = this.#perKey.get(key)! - 1;
      if (left) this.#perKey.set(key, left);
      else this.#perKey.delete(key);
    };
    const use = async <T>(work: () => Promise<T>): Promise<T> => {
      if (!open) throw new Error('hash slot already used');
      left--;
      this.stats.hashed++;
      try {
        return await work();
      } finally {
        if (left === 0) release();
      }
    };
    return {
      hash: (password) => use(() => hashPassword(password)),
      verify: (password, passwordHash) => use(() => verifyPassword(password, passwordHash)),
      verifyDecoy: (password) => use(() => verifyDecoy(password)),
      release,
    };
  }

  /** Hashes a password for `key` in one step, or throws the HashRefusal. */
  async hash(key: string, password: string): Promise<string> {
    const slot = this.tryAdmit(key);
    if (slot instanceof HashRefusal) throw slot;
    return slot.hash(password);
  }
}
