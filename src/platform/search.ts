// The SQL side of ZITADEL's v1 lists (issue 21 "Every list has ZITADEL's query"): filters built from parameters
// only, text matches as LIKE with the pattern escaped, one page with its total, and where the log stood. The
// management API's side (ListQuery, TextQueryMethod, ListDetails) is management/list-query.ts.
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
 * One page of rows with the number of all matching rows and where the log stood, in one statement: one snapshot
 * and one round trip (issue 21's lookups: it was five, BEGIN, a plan setting, the page, the log's position and
 * COMMIT). Planned for the values at hand (Db.queryForValues): a prepared statement's generic plan cannot use an
 * index for `LIKE $1` at all. Past the last row the window has nothing to count: the total then takes a statement
 * of its own: kept out of the common one, whose planning is most of its cost (a count in it made the planning of
 * a user name search 1.5 to 2 times as long, 0.7-0.8 ms against 1.1-1.4 ms on PostgreSQL 15 under load).
 */
export async function listPage<R extends object>(db: Db, sql: ListSql, page: Page): Promise<ListResult<R>> {
  const { params } = sql.where;
  const [first, ...rest] = sql.orderBy;
  const order = [`${first} ${page.asc ? 'ASC' : 'DESC'}`, ...rest].join(', ');
  const n = params.length;
  const matching = `FROM ${sql.from} ${sql.where.sql}`;
  const { rows } = await db.queryForValues<R & ListStateColumns>(
    `SELECT list_page.*, list_state.list_sequence, list_state.list_time
     FROM (SELECT coalesce((SELECT max(sequence) FROM events), 0) AS list_sequence, now() AS list_time) AS list_state
     LEFT JOIN LATERAL (
       SELECT ${sql.select}, count(*) OVER () AS total_result ${matching}
       ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}
     ) AS list_page ON true`, // ON true: only a nested loop joins it, so the rows keep the page's order
    [...params, page.limit, page.offset.toString()],
  );
  const state = rows[0]!;
  const found = state.total_result === null ? [] : rows;
  const pastTheEnd = async () => {
    const counted = await db.queryForValues<{ n: string }>(`SELECT count(*) AS n ${matching}`, params);
    return counted.rows[0]!.n;
  };
  const total = state.total_result ?? (page.offset > 0n ? await pastTheEnd() : '0');
  return {
    rows: found.map(({ total_result: _, list_sequence: _s, list_time: _t, ...row }) => row as unknown as R),
    totalResult: BigInt(total),
    processedSequence: state.list_sequence,
    viewTimestamp: state.list_time,
  };
}

/** The columns listPage adds to each row. */
interface ListStateColumns {
  total_result: string | null;
  list_sequence: string;
  list_time: Date;
}
