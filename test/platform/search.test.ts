// The shared list handling: ListQuery limits, every TextQueryMethod on a real database with the LIKE metacharacters
// taken literally, pages with their total, and ListDetails.
import { create } from '@bufbuild/protobuf';
import { ListQuerySchema, TextQueryMethod } from '@zitadel/proto/zitadel/object_pb.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMIT, listDetailsMessage, pageOf, textFilter } from '../../src/management/list-query.ts';
import { AppError, Code } from '../../src/platform/errors.ts';
import { Conditions, escapeLike, listPage, type Page } from '../../src/platform/search.ts';
import { useTestDb } from '../helpers/database.ts';

describe('ListQuery', () => {
  it('defaults to 100 rows, offset 0, descending', () => {
    expect(pageOf(undefined, 'ListUsersRequest')).toEqual({ offset: 0n, limit: DEFAULT_LIMIT, asc: false });
    expect(pageOf(create(ListQuerySchema, { limit: 0 }), 'X')).toMatchObject({ limit: 100 });
  });

  it('takes offset, limit up to 1000 and asc', () => {
    const page = pageOf(create(ListQuerySchema, { offset: 5n, limit: 1000, asc: true }), 'X');
    expect(page).toEqual({ offset: 5n, limit: 1000, asc: true });
  });

  it('refuses a limit above 1000 with INVALID_ARGUMENT naming the field', () => {
    const error = (() => {
      try {
        pageOf(create(ListQuerySchema, { limit: 1001 }), 'ListUsersRequest');
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error!.code).toBe(Code.InvalidArgument);
    expect(error!.publicMessage).toBe(
      'invalid ListUsersRequest.Query.Limit: value must be at most 1000 (given: 1001) (QUERY-4M0fs)',
    );
  });
});

describe('escapeLike', () => {
  it('escapes the LIKE metacharacters and the escape character', () => {
    expect(escapeLike('a%b_c\\d')).toBe('a\\%b\\_c\\\\d');
  });
});

describe('text filters and pages on the database', () => {
  const db = useTestDb();
  const NAMES = ['Alpha', 'alphabet', 'ALP_X', 'alpXx', '50%off', '50 off', 'back\\slash', 'backslash', 'Zeta'];

  beforeAll(async () => {
    await db.query('CREATE TABLE search_probe (id int PRIMARY KEY, name text NOT NULL)');
    for (const [i, name] of NAMES.entries()) {
      await db.query('INSERT INTO search_probe VALUES ($1, $2)', [i, name]);
    }
  });

  const all: Page = { offset: 0n, limit: 100, asc: true };
  const names = async (value: string, method: TextQueryMethod, page = all) => {
    const where = new Conditions().text('name', textFilter(value, method));
    const result = await listPage<{ name: string }>(
      db,
      { select: 'name', from: 'search_probe', where, orderBy: ['id'] },
      page,
    );
    return result.rows.map((r) => r.name);
  };

  it.each([
    ['Alpha', TextQueryMethod.EQUALS, ['Alpha']],
    ['alpha', TextQueryMethod.EQUALS, []],
    ['alpha', TextQueryMethod.EQUALS_IGNORE_CASE, ['Alpha']],
    ['alp', TextQueryMethod.STARTS_WITH, ['alphabet', 'alpXx']],
    ['alp', TextQueryMethod.STARTS_WITH_IGNORE_CASE, ['Alpha', 'alphabet', 'ALP_X', 'alpXx']],
    ['alp_', TextQueryMethod.STARTS_WITH_IGNORE_CASE, ['ALP_X']],
    ['ALP_', TextQueryMethod.STARTS_WITH, ['ALP_X']],
    ['0%', TextQueryMethod.CONTAINS, ['50%off']],
    ['X', TextQueryMethod.CONTAINS, ['ALP_X', 'alpXx']],
    ['x', TextQueryMethod.CONTAINS_IGNORE_CASE, ['ALP_X', 'alpXx']],
    ['k\\s', TextQueryMethod.CONTAINS, ['back\\slash']],
    ['A', TextQueryMethod.ENDS_WITH, []],
    ['A', TextQueryMethod.ENDS_WITH_IGNORE_CASE, ['Alpha', 'Zeta']],
    ['%', TextQueryMethod.STARTS_WITH, []],
  ])('%s %s', async (value, method, expected) => {
    expect(await names(value, method)).toEqual(expected);
  });

  it('pages with the total of all matching rows, in either direction', async () => {
    const where = () => new Conditions().text('name', textFilter('alp', TextQueryMethod.STARTS_WITH_IGNORE_CASE));
    const page = (offset: bigint, asc: boolean) =>
      listPage<{ name: string }>(
        db,
        { select: 'name', from: 'search_probe', where: where(), orderBy: ['name', 'id'] },
        { offset, limit: 3, asc },
      );
    const first = await page(0n, true);
    expect(first.totalResult).toBe(4n);
    expect(first.rows).toHaveLength(3);
    const last = await page(3n, true);
    expect(last.rows).toHaveLength(1);
    expect(last.totalResult).toBe(4n);
    const beyond = await page(10n, true);
    expect(beyond.rows).toEqual([]);
    expect(beyond.totalResult).toBe(4n);
    const down = await page(0n, false);
    expect([...down.rows, ...(await page(3n, false)).rows].map((r) => r.name)).toEqual(
      [...first.rows, ...last.rows].map((r) => r.name).reverse(),
    );
  });

  it('reports where the event log stood', async () => {
    await db.query(
      `INSERT INTO events (aggregate_type, aggregate_id, event_type, resource_owner, creator)
       VALUES ('probe', '1', 'probe.added', 'x', 'test')`,
    );
    const { rows } = await db.query<{ s: string }>('SELECT max(sequence) AS s FROM events');
    const result = await listPage(
      db,
      { select: 'name', from: 'search_probe', where: new Conditions(), orderBy: ['id'] },
      all,
    );
    const details = listDetailsMessage(result);
    expect(details.totalResult).toBe(BigInt(NAMES.length));
    expect(details.processedSequence).toBe(BigInt(rows[0]!.s));
    expect(details.viewTimestamp).toBeDefined();
  });
});
