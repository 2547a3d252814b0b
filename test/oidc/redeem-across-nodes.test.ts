// A refresh token (or code) presented at once on two nodes is redeemed once (RFC 6749 §4.1.2 for codes; RFC 9700
// §4.14.2 for rotated refresh tokens). Within one node concurrent requests share one statement, which keeps the first
// (queries.ts REDEEM_SQL); across nodes two statements race on PostgreSQL, and the redeem's `consumed_at IS NULL`,
// checked again once the first node's row lock is released (READ COMMITTED re-evaluates an UPDATE's condition on the
// row's newest version), lets only one consume it and write its tokens. Embedded PGlite is one process: no second node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db, type Queryable } from '../../src/platform/db.ts';
import { REDEEM_SQL, type RedeemRow } from '../../src/oidc/queries.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';

describe.runIf(isPostgres)('the redeem across nodes', () => {
  let database: TestDatabase;
  let nodeA: Db;
  let nodeB: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    nodeA = await openDb(database.database);
    nodeB = await openDb(database.database);
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await database?.drop();
  });

  let serial = 0;
  /** A live grant with one refresh token of it. */
  async function refreshToken(): Promise<{ id: string; grantId: string }> {
    const n = ++serial;
    const grantId = `grant-${n}`;
    const id = `refresh-${n}`;
    await nodeA.query(
      `INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at) VALUES
         ('Grant', $1, '{"accountId":"u","clientId":"c"}', $1, now() + interval '1 hour'),
         ('RefreshToken', $2, '{"accountId":"u","clientId":"c"}', $1, now() + interval '1 hour')`,
      [grantId, id],
    );
    return { id, grantId };
  }

  /** The redeem one node's request makes: the source, and the tokens it would write if it consumed it. */
  const redeem = (db: Queryable, source: { id: string; grantId: string }, node: string) => {
    const row: RedeemRow = [
      'RefreshToken',
      source.id,
      source.grantId,
      `${source.id}-next-${node}`,
      { node },
      3600,
      `${source.id}-access-${node}`,
      { node },
      3600,
    ];
    return db.query<{ i: string }>(
      REDEEM_SQL,
      row.map((value) => [value]),
    );
  };

  /** Waits (bounded) until node B's statement waits for a row lock, so that the race is the one under test. */
  async function blockedOnLock(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const waiting = await nodeA.ping(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (Number(waiting) > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("node B's redeem never waited for node A's row lock");
  }

  const writtenBy = async (source: { id: string }) =>
    (
      await nodeA.query<{ id: string }>("SELECT id FROM oidc_payloads WHERE id LIKE $1 || '-%' ORDER BY id", [
        source.id,
      ])
    ).rows.map((r) => r.id);

  it('a token presented on two nodes at once is redeemed by one, and only its tokens are written', async () => {
    const source = await refreshToken();
    let second: Promise<{ rows: { i: string }[] }> | undefined;
    const first = await nodeA.tx(async (tx) => {
      const redeemed = await redeem(tx, source, 'a');
      second = redeem(nodeB, source, 'b'); // node B's request arrives while node A's has not committed
      await blockedOnLock();
      return redeemed;
    });
    expect(first.rows).toHaveLength(1);
    expect((await second!).rows).toEqual([]); // node B found it consumed: the provider answers invalid_grant
    expect(await writtenBy(source)).toEqual([`${source.id}-access-a`, `${source.id}-next-a`]);
  });

  it('a redeem that did not commit leaves the token to the other node', async () => {
    const source = await refreshToken();
    let second: Promise<{ rows: { i: string }[] }> | undefined;
    await nodeA
      .tx(async (tx) => {
        await redeem(tx, source, 'a');
        second = redeem(nodeB, source, 'b');
        await blockedOnLock();
        throw new Error('node A fails before its commit');
      })
      .catch(() => {});
    expect((await second!).rows).toHaveLength(1);
    expect(await writtenBy(source)).toEqual([`${source.id}-access-b`, `${source.id}-next-b`]);
  });
});
