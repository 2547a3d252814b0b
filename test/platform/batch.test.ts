// Batched lookups (src/platform/batch.ts): lookups of one event-loop turn share one statement, each caller gets its
// own key's row, and one caller's bad key or a failed statement never answers another caller wrongly.
import { describe, expect, it } from 'vitest';
import { batchedStatement } from '../../src/platform/batch.ts';
import { useTestDb } from '../helpers/database.ts';

// A lookup of a number's square and a label, absent for negative numbers (so "no row" is a real outcome).
const SQUARES = `
  SELECT r.i, n.n * n.n AS square, r.label || ':' || n.n AS labelled
  FROM unnest($1::int[], $2::text[]) WITH ORDINALITY AS r(n, label, i)
  JOIN LATERAL (SELECT r.n AS n WHERE r.n >= 0) AS n ON true`;

interface Square {
  square: number;
  labelled: string;
}

describe('batched lookups', () => {
  const db = useTestDb();

  it('answers the lookups of one turn with one statement, each with its own row or none', async () => {
    const lookup = batchedStatement<[number, string], Square>(db, SQUARES);
    const before = db.stats.queries;
    const answers = await Promise.all([3, -1, 7, 0, 3].map((n, index) => lookup([n, `k${index}`])));
    expect(db.stats.queries - before).toBe(1);
    expect(answers.map((a) => a && { square: a.square, labelled: a.labelled })).toEqual([
      { square: 9, labelled: 'k0:3' },
      undefined,
      { square: 49, labelled: 'k2:7' },
      { square: 0, labelled: 'k3:0' },
      { square: 9, labelled: 'k4:3' },
    ]);
  });

  it('a lone lookup is one statement of one key; lookups of later turns get statements of their own', async () => {
    const lookup = batchedStatement<[number, string], Square>(db, SQUARES);
    const before = db.stats.queries;
    expect((await lookup([5, 'a']))?.square).toBe(25);
    expect((await lookup([6, 'b']))?.square).toBe(36);
    expect(db.stats.queries - before).toBe(2);
  });

  it('splits a turn of more than 64 lookups into statements of at most 64', async () => {
    const lookup = batchedStatement<[number, string], Square>(db, SQUARES);
    const before = db.stats.queries;
    const numbers = Array.from({ length: 150 }, (_, n) => n);
    const answers = await Promise.all(numbers.map((n) => lookup([n, 'x'])));
    expect(answers.map((a) => a?.square)).toEqual(numbers.map((n) => n * n));
    expect(db.stats.queries - before).toBe(3);
  });

  it('a key PostgreSQL cannot hold (NUL in text) finds nothing and does not fail the others of its turn', async () => {
    const lookup = batchedStatement<[number, string], Square>(db, SQUARES);
    const answers = await Promise.all([lookup([2, 'ok']), lookup([2, 'bad\0key']), lookup([4, 'ok'])]);
    expect(answers.map((a) => a?.labelled)).toEqual(['ok:2', undefined, 'ok:4']);
  });

  it('a failed statement rejects every lookup of its batch, and the next turn works again', async () => {
    const failing = batchedStatement<[number, string], Square>(db, SQUARES.replace('n.n * n.n', '1 / (n.n - n.n)'));
    const results = await Promise.allSettled([failing([1, 'a']), failing([2, 'b'])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/division by zero/);
    const lookup = batchedStatement<[number, string], Square>(db, SQUARES);
    expect((await lookup([9, 'again']))?.square).toBe(81);
  });
});
