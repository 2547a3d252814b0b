// The SQL side of ZITADEL's v1 lists (issue 21 "Every list has ZITADEL's query"): filters built from parameters
// only, text matches as LIKE with the pattern escaped, one page with its total, and where the log stood. The
// management API's side (ListQuery, TextQueryMethod, ListDetails) is management/list-query.ts.
import type { Db, Queryable } from './db.ts';

export const TEXT_METHODS = [
  'equals',
  'equalsIgnoreCase',
  'startsWith',
  'startsWithIgnoreCase',
  'contains',
  'containsIgnoreCase',
  'endsWith',
  'endsWithIgnoreCase',
] as const;
export type TextMethod = (typeof TEXT_METHODS)[number];

/** A text filter on one column, as ZITADEL's `*Query { value, method }` messages carry it. */
export interface TextFilter {
  method: TextMethod;
  value: string;
}

/** One page: offset and limit already checked (list-query.ts), ascending or descending. */
export interface Page {
  offset: bigint;
  limit: number;
  asc: boolean;
}

export interface ListResult<R> {
  rows: R[];
  totalResult: bigint;
  /** The event log's position the rows reflect (ZITADEL's processedSequence). */
  processedSequence: string;
  /** When the rows were read (ZITADEL's viewTimestamp: Gatehouse's views are never behind the log). */
  viewTimestamp: Date;
}

/** The page of a list without a sorting column: in the order things were created, whatever `asc` says (ZITADEL
 *  applies `asc` to a sorting column). */
export const creationOrder = (page: Page): Page => ({ ...page, asc: true });

/** `%`, `_` and the escape character itself taken literally in a LIKE pattern (with `ESCAPE '\'`). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A WHERE clause whose values are all parameters; column expressions come from the code, never from a request. */
export class Conditions {
  readonly params: unknown[] = [];
  readonly #parts: string[] = [];

  /** Adds a value as the next parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** `sql` with `?` standing for the given value, e.g. add('u.org_id = ?', orgId). */
  add(sql: string, value?: unknown): this {
    this.#parts.push(value === undefined ? sql : sql.replace('?', this.param(value)));
    return this;
  }

  /**
   * A text match on `column`. Case-insensitive methods compare lower() of both sides, so an index on lower(column)
   * (text_pattern_ops for the prefix) serves them; the case-sensitive equals and prefix add the same lower()
   * condition, so that one index serves them too, and keep the exact comparison for the result.
   */
  text(column: string, filter: TextFilter): this {
    this.#parts.push(this.match(column, filter));
    return this;
  }

  /** The condition of text(), with its parameters taken, for use inside a larger condition (e.g. EXISTS). */
  match(column: string, filter: TextFilter): string {
    const { method, value } = filter;
    const lower = `lower(${column})`;
    const escaped = escapeLike(value);
    const like = (pattern: string, ignoreCase: boolean) => {
      const folded = `${lower} LIKE lower(${this.param(pattern)}) ESCAPE '\\'`;
      return ignoreCase ? folded : `${folded} AND ${column} LIKE ${this.param(pattern)} ESCAPE '\\'`;
    };
    switch (method) {
      case 'equals':
        return `${lower} = lower(${this.param(value)}) AND ${column} = ${this.param(value)}`;
      case 'equalsIgnoreCase':
        return `${lower} = lower(${this.param(value)})`;
      case 'startsWith':
      case 'startsWithIgnoreCase':
        return like(`${escaped}%`, method === 'startsWithIgnoreCase');
      case 'contains':
      case 'containsIgnoreCase':
        return like(`%${escaped}%`, method === 'containsIgnoreCase');
      case 'endsWith':
      case 'endsWithIgnoreCase':
        return like(`%${escaped}`, method === 'endsWithIgnoreCase');
    }
  }

  get sql(): string {
    return this.#parts.length ? `WHERE ${this.#parts.join(' AND ')}` : '';
  }
}

export interface ListSql {
  /** The columns of a row (trusted text). */
  select: string;
  /** Tables and joins (trusted text). */
  from: string;
  where: Conditions;
  /** Sort expressions (trusted text), the first one in the page's direction, the rest as tie-breakers ascending
   *  (an id last, so pages never overlap). */
  orderBy: string[];
}

/**
 * One page of rows with the number of all matching rows, in one transaction. The plans are made for the values at
 * hand (plan_cache_mode): a prepared statement's generic plan cannot use an index for `LIKE $1` at all, and
 * these statements are prepared under a name on PostgreSQL (platform/statements.ts).
 */
export async function listPage<R extends object>(db: Db, sql: ListSql, page: Page): Promise<ListResult<R>> {
  return db.tx(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SET LOCAL plan_cache_mode = force_custom_plan');
    const { params } = sql.where;
    const [first, ...rest] = sql.orderBy;
    const order = [`${first} ${page.asc ? 'ASC' : 'DESC'}`, ...rest].join(', ');
    const n = params.length;
    const { rows } = await tx.query<R & { total_result: string }>(
      `SELECT ${sql.select}, count(*) OVER () AS total_result FROM ${sql.from} ${sql.where.sql} ` +
        `ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.limit, page.offset.toString()],
    );
    // Past the last row the window has nothing to count: the total then takes a query of its own.
    const total = rows[0] ? rows[0].total_result : page.offset > 0n ? await count(tx, sql) : '0';
    const state = await logPosition(tx);
    return {
      rows: rows.map(({ total_result: _, ...row }) => row as unknown as R),
      totalResult: BigInt(total),
      ...state,
    };
  });
}

async function count(tx: Queryable, sql: ListSql): Promise<string> {
  const { rows } = await tx.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${sql.from} ${sql.where.sql}`,
    sql.where.params,
  );
  return rows[0]!.n;
}

/** The log's newest sequence (a backward step on its primary key) and the time of the read. */
async function logPosition(tx: Queryable): Promise<{ processedSequence: string; viewTimestamp: Date }> {
  const { rows } = await tx.query<{ sequence: string; now: Date }>(
    'SELECT coalesce((SELECT max(sequence) FROM events), 0) AS sequence, now() AS now',
  );
  return { processedSequence: rows[0]!.sequence, viewTimestamp: rows[0]!.now };
}
