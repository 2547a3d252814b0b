// At any size, removing a user's sessions, grants and tokens reads only that user's rows, through indexes. Checked here
// on a small seeded and analyzed database, in both plan modes a prepared statement can take;
// test/production/user-artifacts-at-scale.test.ts checks the same at 1M users and 10M stored tokens, and times it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgOfSeededUser, seededId, type ScaleSize } from '../../bench/scale-seed.ts';
import { changeUserState } from '../../src/users/state.ts';
import { deleteOidcArtifactsOfUser, findUserSessions } from '../../src/users/artifact-queries.ts';
import {
  pagesTouched,
  planOf,
  seededDatabase,
  USER_ARTIFACT_STATEMENTS,
  wholeTableScans,
} from '../helpers/user-artifacts.ts';

// Big enough that a whole-table read costs the planner more than the index lookups (a few hundred pages), small
// enough to seed in seconds on either database.
const SIZE: ScaleSize = { orgs: 20, users: 5000, apps: 100, tokens: 50_000 };
/** The parameters' user and org of seeded user n. */
const seededUser = (n: number) => [seededId('user', n), seededId('org', orgOfSeededUser(n, SIZE))] as const;

describe('statements over one user’s artifacts', () => {
  let seeded: Awaited<ReturnType<typeof seededDatabase>>;
  beforeAll(async () => {
    seeded = await seededDatabase(SIZE);
  }, 120_000);
  afterAll(() => seeded?.drop());

  for (const { name, sql, params, indexes } of USER_ARTIFACT_STATEMENTS)
    for (const mode of ['force_generic_plan', 'force_custom_plan'] as const)
      it(`${name} reads the user's rows by index only (${mode})`, async () => {
        const { scans } = await planOf(seeded.db, sql, params(...seededUser(42)), mode);
        expect(wholeTableScans(scans)).toEqual([]);
        for (const index of indexes) expect(scans).toContainEqual(expect.objectContaining({ index }));
      });

  for (const { name, sql, params } of USER_ARTIFACT_STATEMENTS)
    it(`${name} touches only tens of pages`, async () => {
      expect(await pagesTouched(seeded.db, sql, params(...seededUser(43)))).toBeLessThan(200);
    });

  it("deletes exactly the user's rows and those of the user's grants, no others", async () => {
    const count = async (where: string, params: string[] = []) =>
      Number((await seeded.db.query(`SELECT count(*) AS n FROM oidc_payloads WHERE ${where}`, params)).rows[0]!.n);
    const userId = seededId('user', 7);
    // A row of the user's grant that names no account (none of oidc-provider's models does so today) goes too.
    const { rows } = await seeded.db.query<{ grant_id: string }>(
      "SELECT grant_id FROM oidc_payloads WHERE payload->>'accountId' = $1 AND model = 'Grant'",
      [userId],
    );
    await seeded.db.query(
      "INSERT INTO oidc_payloads (model, id, payload, grant_id) VALUES ('AccessToken', 'no-account', '{}', $1)",
      [rows[0]!.grant_id],
    );
    const before = await count('true');
    const own = await count("payload->>'accountId' = $1", [userId]);
    expect(own).toBeGreaterThan(0);
    const removed = await seeded.db.tx((tx) => deleteOidcArtifactsOfUser(tx, userId));
    expect(removed).toBe(own + 1);
    expect(await count('true')).toBe(before - own - 1);
    expect(await count("payload->>'accountId' = $1", [userId])).toBe(0);
  });

  it("lists the user's open session (sign-in, apps, amr) for the user's org only", async () => {
    const [userId, orgId] = seededUser(9);
    const { rows } = await seeded.db.query<{ client_id: string; login_ts: number }>(
      `SELECT jsonb_object_keys(payload->'authorizations') AS client_id, (payload->>'loginTs')::int AS login_ts
       FROM oidc_payloads WHERE payload->>'accountId' = $1 AND model = 'Session'`,
      [userId],
    );
    expect(rows).toHaveLength(1);
    const sessions = await findUserSessions(seeded.db, orgId, userId);
    expect(sessions).toEqual([
      {
        signedInAt: new Date(rows[0]!.login_ts * 1000),
        expiresAt: expect.any(Date),
        // the seeded session's app is one of the user's org: named with its project
        apps: [
          {
            clientId: rows[0]!.client_id,
            app: {
              id: expect.any(String),
              name: expect.any(String),
              projectId: expect.any(String),
              projectName: expect.any(String),
            },
          },
        ],
        amr: ['pwd'],
      },
    ]);
    expect(sessions[0]!.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const [, otherOrg] = seededUser(10);
    expect(otherOrg).not.toBe(orgId);
    expect(await findUserSessions(seeded.db, otherOrg, userId)).toEqual([]);
  });

  it('deactivating a seeded user ends its artifacts', async () => {
    const userId = seededId('user', 8);
    await changeUserState(
      seeded.db,
      { orgId: seededId('org', orgOfSeededUser(8, SIZE)), userId },
      'deactivate',
      'test',
    );
    const { rows } = await seeded.db.query("SELECT 1 FROM oidc_payloads WHERE payload->>'accountId' = $1", [userId]);
    expect(rows).toEqual([]);
  });
});
