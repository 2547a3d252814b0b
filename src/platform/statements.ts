// How statements reach PostgreSQL (db.ts picks per database and pooling mode): named prepared statements, unnamed
// ones, and a bare query that carries its own statement timeout through a transaction pooler.
import pg from 'pg';

// Parameterised statements are prepared once per connection, under a name given to their text, so PostgreSQL parses and
// plans each only once. Measured on PostgreSQL 15: a primary-key read of oidc_payloads costs the server about 30 µs
// instead of 115 and an upsert 180 instead of 250, and pg's own work per query halves. Every statement text in src/ is
// a constant, so the names stay few; NAMED_MAX bounds them should one ever be built from data. A migration that changes
// the columns a prepared statement returns makes the connections of older processes fail it ("cached plan must not
// change result type") until they restart, which is why queries name their columns. Not on PGlite: it keeps one session
// under every client the pool hands out, so a name prepared through a client the pool discarded would still be taken.
const statementNames = new Map<string, string>();
const NAMED_MAX = 500;

export function named(text: string, params: readonly unknown[] | undefined): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  if (!values?.length) return { text, values };
  let name = statementNames.get(text);
  if (!name && statementNames.size < NAMED_MAX) {
    name = `gh${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

export const unnamed = (text: string, params: readonly unknown[] | undefined): pg.QueryConfig => ({
  text,
  values: params as unknown[] | undefined,
});

// Under a transaction pooler (PgBouncer 1.18 as Debian 12 ships it) a connection is a different server session for
// every transaction, so Gatehouse keeps no state in sessions: no named statements (the next transaction may run where
// the name was never prepared), no statement_timeout startup parameter (PgBouncer refuses it), no session advisory
// locks (Db.session in db.ts). The timeout is set per transaction instead:
// - db.tx opens with `BEGIN; SET LOCAL statement_timeout = …` in one simple-protocol message, as many round trips
//   as the plain BEGIN;
// - a bare db.query is its own implicit transaction, which in the extended protocol lasts until Sync. TimedQuery
//   sends set_config('statement_timeout', …, true) and the query as one pipeline with a single Sync: one write,
//   one round trip, and the setting ends with that implicit transaction. (SET LOCAL there works too but makes
//   PostgreSQL log a WARNING per query, "SET LOCAL can only be used in transaction blocks".)
// What it costs against session mode: each parameterised statement is parsed and planned again (the figures above), and
// a bare query carries one more tiny statement in the same round trip.
export type Submittable = pg.QueryConfig | pg.Query;
export type Statement = (text: string, params: readonly unknown[] | undefined) => Submittable;

// pg.Query's protocol hooks are not in its type definitions; these are the ones TimedQuery extends.
interface QueryInternals {
  prepare(connection: PgConnection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
}
interface PgConnection {
  parse(message: { text: string }): void;
  bind(message: object): void;
  execute(message: object): void;
}
const QueryBase = pg.Query as unknown as new (
  config: pg.QueryConfig & { queryMode: 'extended' },
) => pg.Query & QueryInternals;

export class TimedQuery extends QueryBase {
  readonly #setTimeout: string;
  #timeoutAnswered = false;

  constructor(timeoutMs: number, text: string, params: readonly unknown[] | undefined) {
    // extended protocol even without parameters: the simple protocol cannot carry the second statement apart
    super({ text, values: params as unknown[] | undefined, queryMode: 'extended' });
    this.#setTimeout = `SELECT set_config('statement_timeout', '${Math.trunc(timeoutMs)}', true)`;
  }

  override prepare(connection: PgConnection): void {
    // Parse/Bind/Execute of the setting, then pg's own Parse/Bind/Describe/Execute/Sync of the query, in one
    // corked write (pg.Query.submit); no Describe for the setting, so its answer is a DataRow and CommandComplete.
    connection.parse({ text: this.#setTimeout });
    connection.bind({});
    connection.execute({});
    super.prepare(connection);
  }

  override handleDataRow(message: unknown): void {
    if (this.#timeoutAnswered) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (!this.#timeoutAnswered) {
      this.#timeoutAnswered = true;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}

/** Sends a query config or a TimedQuery and resolves with its result (a submittable is not a promise in pg). */
export function send<R extends pg.QueryResultRow>(
  target: pg.Pool | pg.ClientBase,
  statement: Submittable,
): Promise<pg.QueryResult<R>> {
  if (!(statement instanceof pg.Query)) return target.query<R>(statement);
  return new Promise((resolve, reject) => {
    (target.query as (q: pg.Query, v: undefined, cb: (e: Error | null, r: pg.QueryResult<R>) => void) => void).call(
      target,
      statement,
      undefined,
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}
