// Statements that concurrent requests make in the same event-loop turn go to the database as one (the DataLoader
// pattern): the token lookups of introspection, userinfo and bearer checks, and the token writes of the machine grants.
// Under load a round trip to PostgreSQL (and a commit, for a write) costs both processes more than one more row:
// measured on PostgreSQL 15, one token lookup costs the server about 120 µs and Node about 125 µs, while eight in one
// statement cost 150 µs and 200 µs in all. A lone request still makes exactly one query, and waits only for the end of
// the current turn (setImmediate), not for a timer.
import type { QueryResultRow } from 'pg';
import type { Queryable } from './db.ts';

/** The most keys one statement carries; more wait for the next statement of the same turn. */
const MAX_BATCH = 64;

interface Waiter<R> {
  key: readonly unknown[];
  resolve(row: R | undefined): void;
  reject(error: unknown): void;
}

/**
 * A statement of at most one row per key, batched. `sql` takes one array parameter per key column ($1 the first
 * columns of all keys, $2 the second, ...) and returns each key's row, if any, with the key's 1-based position in
 * column `i`; `unnest($1::text[], ...) WITH ORDINALITY AS r(..., i) LEFT JOIN LATERAL (...)` has that shape. The
 * keys of a batch share its fate: a failed statement fails them all (and a write commits them together).
 */
export function batchedStatement<K extends readonly unknown[], R extends QueryResultRow>(
  db: Queryable,
  sql: string,
): (key: K) => Promise<R | undefined> {
  let pending: Waiter<R>[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    while (pending.length) {
      const batch = pending.slice(0, MAX_BATCH);
      pending = pending.slice(MAX_BATCH);
      const params = batch[0]!.key.map((_, column) => batch.map((w) => w.key[column]));
      db.query<R & { i: string }>(sql, params).then(
        ({ rows }) => {
          const found: (R | undefined)[] = [];
          for (const row of rows) found[Number(row.i) - 1] = row;
          for (const [index, w] of batch.entries()) w.resolve(found[index]);
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      );
    }
  };

  return (key) => {
    // PostgreSQL text cannot hold NUL, so no stored row matches such a key; sent along, it would fail the
    // statement for every request in the batch.
    if (key.some((v) => typeof v === 'string' && v.includes('\0'))) return Promise.resolve(undefined);
    return new Promise<R | undefined>((resolve, reject) => {
      pending.push({ key, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  };
}
