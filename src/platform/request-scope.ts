// Request scope: what the layers of one request hand each other, and the writes they leave for its end, held in one
// AsyncLocalStorage instead of being passed down through every layer in between. Both save round trips:
//
// - Values handed ahead: an upper layer reads with one statement the rows lower layers will ask for later (the
//   authorization endpoint's session, client and user; the login page's interaction, policy and IdP buttons; the
//   password step's interaction and counted attempt), and each lower layer takes its row from here, once, instead of
//   reading it again. A value nobody takes dies with the request.
// - A unit of work: the writes a request's layers make are held back and sent together, in one statement, before
//   its answer leaves (the writer is oidc/write-behind.ts, for oidc-provider's rows; the lockout's settlement rides
//   along as a CTE). Reads in the unit see its held rows.
//
// Each domain declares the keys of the values it reads (scopeKey): the key's type says what the value is, its name,
// unique in the process, whose it is. The layer that fills a key imports it from below, so the data path of a
// request reads from the top down and no layer reaches up.
import { AsyncLocalStorage } from 'node:async_hooks';

/** A kind of value a request may carry; an id tells apart the values of one kind (rows by their ID). */
export interface ScopeKey<T> {
  readonly name: string;
  /** Never set: it carries the type of the key's values. */
  readonly type?: T;
}

const declared = new Set<string>();

/** Declares a key under a name no other key has, so no domain reads another's values by mistake. */
export function scopeKey<T>(name: string): ScopeKey<T> {
  if (declared.has(name)) throw new Error(`request scope key declared twice: ${name}`);
  declared.add(name);
  return { name };
}

/** Values of several keys, by key and id. */
type Slots = Map<ScopeKey<unknown>, Map<string, unknown>>;

const slotsOf = (slots: Slots, key: ScopeKey<unknown>) => {
  const ofKey = slots.get(key) ?? new Map<string, unknown>();
  slots.set(key, ofKey);
  return ofKey;
};

/** One value for the scope; `value` undefined: it was looked for and there is none. */
export interface Scoped {
  key: ScopeKey<unknown>;
  id: string;
  value: unknown;
}

export const scoped = <T>(key: ScopeKey<T>, value: T | undefined, id = ''): Scoped => ({ key, id, value });

/** What a unit of work holds when it is sent. */
export interface Held {
  /** The rows of a key the unit saves (a row) or deletes (null), by id: one entry per row, the last write wins. */
  rows<T>(key: ScopeKey<T>): Map<string, T | null>;
  /** The domains' own writes (deferWrite). */
  writes: DeferredWrite[];
}

/** A data-modifying CTE (`name AS (...)`, comma-separated ones allowed) for the statement that sends a unit of work;
 *  `param` places a value as a parameter and returns its placeholder. Its names must differ from the statement's. */
export type DeferredWrite = (param: (value: unknown) => string) => string;

interface Unit {
  rows: Slots;
  writes: DeferredWrite[];
  send(held: Held): Promise<void>;
}

interface Scope {
  /** The request's values: every unit of work of the request sees the same. */
  values: Slots;
  unit: Unit | undefined;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs fn with these values in the request's scope, which opens here when no step before opened it. */
export function withScoped<T>(values: Scoped[], fn: () => T): T {
  const scope = scopes.getStore();
  if (!scope) return scopes.run({ values: new Map(), unit: undefined }, () => withScoped(values, fn));
  for (const { key, id, value } of values) slotsOf(scope.values, key).set(id, value);
  return fn();
}

/** The value of this key in the request: `{ value }` (undefined: there is none), or undefined when it has none. */
export function getScoped<T>(key: ScopeKey<T>, id = ''): { value: T | undefined } | undefined {
  const ofKey = scopes.getStore()?.values.get(key);
  return ofKey?.has(id) ? { value: ofKey.get(id) as T | undefined } : undefined;
}

/** getScoped, once: the value is gone for the rest of the request (a second read goes to the database). */
export function takeScoped<T>(key: ScopeKey<T>, id = ''): { value: T | undefined } | undefined {
  const found = getScoped(key, id);
  if (found) dropScoped(key, id);
  return found;
}

/** A value for the rest of the request; false when no request scope runs and nothing was kept. */
export function setScoped<T>(key: ScopeKey<T>, value: T, id = ''): boolean {
  const scope = scopes.getStore();
  if (scope) slotsOf(scope.values, key).set(id, value);
  return scope !== undefined;
}

/** Drops a value: after a write of its row, a later read must go to the database. */
export function dropScoped(key: ScopeKey<unknown>, id = ''): void {
  scopes.getStore()?.values.get(key)?.delete(id);
}

/**
 * Runs fn as a unit of work: rows and writes deferred in it are held back and handed to `send` when fn is done,
 * failed or not, or earlier (writeDeferred). A unit inside another holds its own, and sees the request's values.
 */
export async function unitOfWork<T>(send: (held: Held) => Promise<void>, fn: () => Promise<T>): Promise<T> {
  const unit: Unit = { rows: new Map(), writes: [], send };
  return scopes.run({ values: scopes.getStore()?.values ?? new Map(), unit }, async () => {
    try {
      return await fn();
    } finally {
      await sendHeld(unit);
    }
  });
}

/** Holds the save (a row) or delete (null) of a row for the unit of work; false when none runs and the caller must
 *  write it now. */
export function deferRow<T>(key: ScopeKey<T>, id: string, row: T | null): boolean {
  const unit = scopes.getStore()?.unit;
  if (unit) slotsOf(unit.rows, key).set(id, row);
  return unit !== undefined;
}

/** The held state of a row: `{ row }` (null: deleted), or undefined when the unit holds nothing for it. */
export function deferredRow<T>(key: ScopeKey<T>, id: string): { row: T | null } | undefined {
  const ofKey = scopes.getStore()?.unit?.rows.get(key);
  return ofKey?.has(id) ? { row: ofKey.get(id) as T | null } : undefined;
}

/** Holds one of a domain's writes for the unit of work; false when none runs and the caller must write it now. */
export function deferWrite(write: DeferredWrite): boolean {
  const unit = scopes.getStore()?.unit;
  unit?.writes.push(write);
  return unit !== undefined;
}

/** Sends what the unit holds now: before an operation that must see it in the database, or an answer that leaves. */
export async function writeDeferred(): Promise<void> {
  const unit = scopes.getStore()?.unit;
  if (unit) await sendHeld(unit);
}

async function sendHeld(unit: Unit): Promise<void> {
  if (!unit.rows.size && !unit.writes.length) return;
  const { rows, writes } = unit;
  unit.rows = new Map();
  unit.writes = [];
  await unit.send({ rows: <T>(key: ScopeKey<T>) => (rows.get(key) ?? new Map()) as Map<string, T | null>, writes });
}
