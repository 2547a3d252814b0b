// How a test reads the plan PostgreSQL runs a statement with. A named statement (platform/statements.ts) is planned
// for its values for five runs, then may be planned once for any values (a generic plan). EXPLAIN of the statement
// with bound parameters shows neither reliably: PostgreSQL 15 plans the EXPLAINed query with the values folded in,
// whatever plan_cache_mode says (it has no EXPLAIN (GENERIC_PLAN)). PREPARE and EXPLAIN EXECUTE do run the cached
// plan, generic or custom as plan_cache_mode forces it; EXECUTE takes its values as literals.
import type { Db, Queryable } from '../../src/platform/db.ts';

export type PlanMode = 'force_generic_plan' | 'force_custom_plan';

/** A statement's parameter as an SQL literal, of the type PREPARE inferred for it. */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  // an empty array as an untyped literal, which takes the parameter's array type
  if (Array.isArray(value)) return value.length ? `ARRAY[${value.map(sqlLiteral).join(', ')}]` : `'{}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  const text = (raw: string) => `'${raw.replace(/'/g, "''")}'`;
  if (typeof value === 'object') return `${text(JSON.stringify(value))}::jsonb`; // pg sends objects as JSON
  return text(String(value));
}

/** The JSON plan of `sql` with `params`, prepared and executed under `mode` inside `tx`; `analyze` runs it (the
 *  caller rolls the transaction back), `buffers` counts the pages it touched. */
export async function explainPrepared<P>(
  tx: Queryable,
  sql: string,
  params: readonly unknown[],
  mode: PlanMode,
  { analyze = false, buffers = false } = {},
): Promise<P> {
  await tx.query(`SET LOCAL plan_cache_mode = ${mode}`);
  await tx.query(`PREPARE explained AS ${sql}`);
  const args = params.length ? `(${params.map(sqlLiteral).join(', ')})` : '';
  const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: P }] }>(
    `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}${buffers ? 'BUFFERS, ' : ''}FORMAT JSON) EXECUTE explained${args}`,
  );
  await tx.query('DEALLOCATE explained');
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/** What fn returns, from a transaction that is then rolled back: an EXPLAIN ANALYZE of a write, rows added to shape
 *  a plan. */
export async function rolledBack<T>(db: Db, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const undo = new Error('rolled back');
  let result: T | undefined;
  await db
    .tx(async (tx) => {
      result = await fn(tx);
      throw undo;
    })
    .catch((error: unknown) => {
      if (error !== undo) throw error;
    });
  return result as T;
}

/** The plans of one statement before and after its table grows: `sql` prepared as a named statement, its
 *  generic plan made now on the tables as they are (`made`), run again after `grow` added rows without an ANALYZE
 *  in between (autovacuum off, or not yet run) (`kept`: the plan a connection keeps), and planned for its values
 *  then (`now`: what Db.queryPlanned gets). EXPLAIN texts; rolled back, the prepared statement deallocated. */
export async function keptAndCurrentPlans(
  db: Db,
  sql: string,
  params: readonly unknown[],
  grow: string,
): Promise<{ made: string; kept: string; now: string }> {
  return rolledBack(db, async (tx) => {
    const args = `(${params.map(sqlLiteral).join(', ')})`;
    const explain = async () =>
      (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE kept${args}`)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await tx.query(`PREPARE kept AS ${sql}`);
    const made = await explain();
    await tx.query(grow);
    const kept = await explain();
    await tx.query('SET LOCAL plan_cache_mode = force_custom_plan');
    const now = await explain();
    await tx.query('DEALLOCATE kept');
    return { made, kept, now };
  });
}
