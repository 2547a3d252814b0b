// The batched token statements (the lookups of introspection, userinfo and bearer checks, personal access tokens among
// them; the machine grants' token writes) work key by key through indexes, however many rows are stored: PostgreSQL
// plans a prepared batch once for any number of keys, and without care it flattens the per-key work into joins over
// whole tables.
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKENS_SQL, BEARER_SQL, INSERT_TOKENS, INTROSPECTION_SQL } from '../../src/oidc/queries.ts';
import { useTestDb } from '../helpers/database.ts';

const STORED_TOKENS = 60_000;

describe('batched token statement plans', () => {
  const db = useTestDb();

  beforeAll(async () => {
    await db.query(
      `
      INSERT INTO oidc_payloads (model, id, payload, grant_id, expires_at)
      SELECT 'AccessToken', 'token-' || n, jsonb_build_object('jti', 'token-' || n, 'clientId', 'app', ` +
        `'accountId', 'user-' || (n % 100)),
             CASE WHEN n % 2 = 0 THEN 'grant-' || n END, now() + interval '1 hour'
      FROM generate_series(1, ${STORED_TOKENS}) AS n`,
    );
    // personal access tokens of machine users (users/personal-access-tokens.ts), found by the hash of the token
    await db.query("INSERT INTO orgs (id, name, primary_domain, sequence) VALUES ('org', 'Org', 'org.example', 1)");
    await db.query(
      `INSERT INTO users (id, org_id, type, user_name, machine_name, sequence)
       SELECT 'user-' || n, 'org', 'machine', 'user-' || n, 'm', 1 FROM generate_series(0, 9999) AS n`,
    );
    await db.query(
      `INSERT INTO personal_access_tokens (id, user_id, token_hash, scope, expires_at, sequence)
       SELECT 'pat-' || n, 'user-' || (n % 10000), 'pat-hash-' || n, 'openid', now() + interval '1 day', 1
       FROM generate_series(1, ${STORED_TOKENS / 10}) AS n`,
    );
    await db.query('ANALYZE');
  });

  /** The plan of a prepared statement, generic (what a connection uses after five runs) or for these parameters. */
  async function planOf(
    sql: string,
    params: string,
    mode: 'force_generic_plan' | 'force_custom_plan',
  ): Promise<string> {
    return db.tx(async (tx) => {
      await tx.query(`SET LOCAL plan_cache_mode = ${mode}`);
      await tx.query(`PREPARE lookup AS ${sql}`);
      const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE lookup(${params})`);
      await tx.query('DEALLOCATE lookup');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
    it(`reads each token by its primary key (${mode})`, async () => {
      const keys = "ARRAY['token-7', 'token-8']";
      for (const plan of [
        await planOf(ACCESS_TOKENS_SQL, keys, mode),
        await planOf(INTROSPECTION_SQL, `${keys}, ARRAY['caller', 'caller']`, mode),
        await planOf(BEARER_SQL, `${keys}, ARRAY['org', NULL]`, mode),
      ]) {
        expect(plan).toMatch(/Index Scan using oidc_payloads_pkey on oidc_payloads t/);
        // a machine user's personal access token, by the index on its hash
        expect(plan).toMatch(/Index Scan using personal_access_tokens_token_hash_key on personal_access_tokens p/);
        // each key runs a lookup of its own (a Limit inside the loop over the keys), never a join across the batch:
        // such a join scans users and orgs once per key, users x orgs a lookup when both grew after the plan was
        // made (seen in the benchmark: 1 s a lookup after SetUpOrg)
        expect(plan).toMatch(/Function Scan on (unnest )?r .*\n\s+-> {2}Limit/);
        expect(plan).not.toMatch(/Hash|Materialize|Seq Scan on oidc_payloads/);
      }
    });

    it(`checks the credentials of each machine token it writes by index, key by key (${mode})`, async () => {
      const plan = await planOf(
        INSERT_TOKENS,
        "ARRAY['t1'], ARRAY['{}'::jsonb], ARRAY[60], ARRAY['user-1'], ARRAY['opaque'], ARRAY['hash'], " +
          'ARRAY[NULL::text]',
        mode,
      );
      // the rows to write, each with a check of its own (a Limit inside the loop), never a join of users and the batch
      expect(plan).toMatch(
        /Insert on oidc_payloads .*\n\s+-> {2}Nested Loop .*\n\s+-> {2}CTE Scan on r\w* .*\n\s+-> {2}Limit/,
      );
    });
  }
});
