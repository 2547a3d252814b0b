// The statements that end what oidc-provider holds for users (issue 6 DeactivateUser, issue 24 at production size),
// apart from users/queries.ts because they write oidc_payloads, not users.
import type { Queryable } from '../platform/db.ts';

/**
 * Ends everything oidc-provider holds for a user (sessions, grants, codes, tokens) in the caller's transaction:
 * a deactivated user's tokens are inactive at once on every process (issue 6, DeactivateUser). The rows are
 * oidc_payloads (src/oidc/payloads.ts); the statement lives here so that users/ never imports the OIDC layer above
 * it (issue 14 §1). It reads only the user's rows at any size (issue 24, test/users/artifact-plans.test.ts): it repeats
 * the predicate of the partial index oidc_payloads_account_idx, without which PostgreSQL cannot use that index and
 * reads every stored payload (4 to 24 s at 10 million), and it names the user's grants as an array computed once, so
 * that both lookups are index scans of one bitmap rather than a join (0.2-0.4 ms there; migration 0050 keeps its
 * estimate, and so its cost, as small as the rows it reads).
 */
export const DELETE_OIDC_ARTIFACTS_OF_USER = `
  DELETE FROM oidc_payloads
  WHERE (payload ? 'accountId' AND payload->>'accountId' = $1)
     OR grant_id = ANY (ARRAY(SELECT grant_id FROM oidc_payloads
                              WHERE payload ? 'accountId' AND payload->>'accountId' = $1 AND grant_id IS NOT NULL))`;

export async function deleteOidcArtifactsOfUser(tx: Queryable, userId: string): Promise<number> {
  const { rowCount } = await tx.query(DELETE_OIDC_ARTIFACTS_OF_USER, [userId]);
  return rowCount ?? 0;
}

/** The same for every user of an org (DeactivateOrg, RemoveOrg), as two statements so that the org's users are
 *  read once in each: the rows of the grants its users hold, then the users' own rows. */
export async function deleteOidcArtifactsOfOrgUsers(tx: Queryable, orgId: string): Promise<number> {
  const owned = `payload ? 'accountId' AND payload->>'accountId' = ANY(ARRAY(SELECT id FROM users WHERE org_id = $1))`;
  const grants = await tx.query(
    `DELETE FROM oidc_payloads WHERE grant_id = ANY(ARRAY(
       SELECT grant_id FROM oidc_payloads WHERE ${owned} AND grant_id IS NOT NULL))`,
    [orgId],
  );
  const rest = await tx.query(`DELETE FROM oidc_payloads WHERE ${owned}`, [orgId]);
  return (grants.rowCount ?? 0) + (rest.rowCount ?? 0);
}
