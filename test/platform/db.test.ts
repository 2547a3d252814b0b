import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.ts';
import { useTestDb } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';

describe('database statements', () => {
  const db = useTestDb();

  const prepared = (tx: { query: Db['query'] }) =>
    tx
      .query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')
      .then((r) => r.rows.map((row) => row.statement));

  it('prepares a parameterised statement once per PostgreSQL connection and reuses it; plain ones are not \
prepared', async () => {
    const read = 'SELECT $1::int + 1 AS next';
    await db.tx(async (tx) => {
      expect((await tx.query<{ next: number }>(read, [1])).rows[0]!.next).toBe(2);
      expect((await tx.query<{ next: number }>(read, [41])).rows[0]!.next).toBe(42);
      const statements = await prepared(tx);
      // the embedded database is not prepared for (src/platform/db.ts)
      expect(statements.filter((s) => s === read)).toHaveLength(isPostgres ? 1 : 0);
      expect(statements).not.toContain('SELECT statement FROM pg_prepared_statements');
    });
    // every connection of the pool answers it, whether it has prepared it yet or not
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => db.query<{ next: number }>(read, [n])));
    expect(answers.map((a) => a.rows[0]!.next)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it.runIf(isPostgres)(
    'a prepared statement that fails, at run time or when parsed, leaves the connections usable',
    async () => {
      await expect(db.query('SELECT $1::int / 0 AS boom', [1])).rejects.toThrow(/division by zero/);
      await expect(db.query('SELECT $1::int / 0 AS boom', [1])).rejects.toThrow(/division by zero/);
      await expect(db.query('SELEC $1::int', [1])).rejects.toThrow(/syntax/);
      await expect(db.query('SELEC $1::int', [1])).rejects.toThrow(/syntax/);
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) => db.query<{ ok: number }>('SELECT $1::int AS ok', [n])),
      );
      expect(answers.map((a) => a.rows[0]!.ok)).toEqual([1, 2, 3, 4, 5, 6]);
    },
  );
});
