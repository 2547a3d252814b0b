// The SQL side of ZITADEL's v1 lists and their queries: filters built from parameters only, text matches as LIKE with
// the pattern escaped, one page with its total, and where the log stood. The management API's side (ListQuery,
// TextQueryMethod, ListDetails) is management/list-query.ts.
import type { Db } from './db.ts';

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
 * One page of rows with the number of all matching rows and where the log stood, in one statement (one snapshot, one
 * round trip; it once took a transaction of three statements). The count is a subquery of its own rather than a window
 * over the page's query, so that it can be an index-only scan and the page an index scan that stops after `limit` rows:
 * a window count made PostgreSQL read and sort every matching row, which at 1,000 users of an org meant 1,000 heap
 * pages for a page of 20. The statement is planned for its values (Db.queryPlanned): a generic plan cannot use an index
 * for `LIKE $1`.
 */
export async function listPage<R extends object>(db: Db, sql: ListSql, page: Page): Promise<ListResult<R>> {
  const { params } = sql.where;
  const [first, ...rest] = sql.orderBy;
  const order = [`${first} ${page.asc ? 'ASC' : 'DESC'}`, ...rest].join(', ');
  const n = params.length;
  const { rows } = await db.queryPlanned<R & PageColumns>(
    `SELECT ${sql.select}, ${totalAndPosition(sql)} FROM ${sql.from} ${sql.where.sql} ` +
      `ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, page.limit, page.offset.toString()],
  );
  // No row to carry them (no match, or past the last row): the total and the position take a statement of their own.
  const state = rows[0] ?? (await db.queryPlanned<PageColumns>(`SELECT ${totalAndPosition(sql)}`, params)).rows[0]!;
  return {
    rows: rows.map(({ list_total: _t, list_sequence: _s, list_read_at: _r, ...row }) => row as unknown as R),
    totalResult: BigInt(state.list_total),
    processedSequence: state.list_sequence,
    viewTimestamp: state.list_read_at,
  };
}

interface PageColumns {
  list_total: string;
  list_sequence: string;
  list_read_at: Date;
}

/** The count of all matching rows, the log's newest sequence (a backward step on its primary key) and the time of
 *  the read, as columns; `sql.from`'s aliases inside the subquery are its own. */
const totalAndPosition = (sql: ListSql) =>
  `(SELECT count(*) FROM ${sql.from} ${sql.where.sql}) AS list_total, ` +
  '(SELECT coalesce(max(sequence), 0) FROM events)::text AS list_sequence, now() AS list_read_at';
