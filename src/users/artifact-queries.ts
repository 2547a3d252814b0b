// The statements over what oidc-provider holds for users: those that end it (DeactivateUser, fast at
// production size) and the console's list of a user's sessions, apart from users/queries.ts because they
// read and write oidc_payloads, not users.
import type { Queryable } from '../platform/db.ts';
import { END_CONSOLE_SESSIONS_OF_USER, endConsoleSessionsOfUsers } from './console-sessions.ts';

/**
 * Ends everything oidc-provider holds for a user (sessions, grants, codes, tokens) in the caller's transaction:
 * a deactivated user's tokens are inactive at once on every process (DeactivateUser). The rows are
 * oidc_payloads (src/oidc/payloads.ts); the statement lives here so that users/ never imports the OIDC layer above
 * it. It reads only the user's rows at any size (test/users/artifact-plans.test.ts): it repeats
 * the predicate of the partial index oidc_payloads_account_idx, without which PostgreSQL cannot use that index and
 * reads every stored payload (4 to 24 s at 10 million), and it names the user's grants as an array computed once, so
 * that both lookups are index scans of one bitmap rather than a join (0.2-0.4 ms there; migration 0050 keeps its
 * estimate, and so its cost, as small as the rows it reads). The user's console sessions end in the same
 * statement (users/console-sessions.ts), so signing a user out ends every session.
 */
export const DELETE_OIDC_ARTIFACTS_OF_USER = `
  WITH ${END_CONSOLE_SESSIONS_OF_USER}
  DELETE FROM oidc_payloads
  WHERE (payload ? 'accountId' AND payload->>'accountId' = $1)
     OR grant_id = ANY (ARRAY(SELECT grant_id FROM oidc_payloads
                              WHERE payload ? 'accountId' AND payload->>'accountId' = $1 AND grant_id IS NOT NULL))`;

export async function deleteOidcArtifactsOfUser(tx: Queryable, userId: string): Promise<number> {
  const { rowCount } = await tx.query(DELETE_OIDC_ARTIFACTS_OF_USER, [userId]);
  return rowCount ?? 0;
}

/** The same for every user of an org (DeactivateOrg, RemoveOrg), as two statements so that the org's users are
 *  read once in each: the rows of the grants its users hold, then the users' own rows and console sessions. */
export async function deleteOidcArtifactsOfOrgUsers(tx: Queryable, orgId: string): Promise<number> {
  const users = 'ANY(ARRAY(SELECT id FROM users WHERE org_id = $1))';
  const owned = `payload ? 'accountId' AND payload->>'accountId' = ${users}`;
  const grants = await tx.query(
    `DELETE FROM oidc_payloads WHERE grant_id = ANY(ARRAY(
       SELECT grant_id FROM oidc_payloads WHERE ${owned} AND grant_id IS NOT NULL))`,
    [orgId],
  );
  // the org's users read once for both deletes (a large org's users are many index entries)
  const orgUsers = 'ANY((SELECT ids FROM org_users)::text[])';
  const rest = await tx.query(
    `WITH org_users AS MATERIALIZED (SELECT ARRAY(SELECT id FROM users WHERE org_id = $1) AS ids),
     ${endConsoleSessionsOfUsers(orgUsers)}
     DELETE FROM oidc_payloads WHERE payload ? 'accountId' AND payload->>'accountId' = ${orgUsers}`,
    [orgId],
  );
  return (grants.rowCount ?? 0) + (rest.rowCount ?? 0);
}

/** A client a session signed in to: an app of the org with its name and project, else (the console, the account
 *  page, another org's app) its client id alone, naming nothing of another org. */
export interface SessionApp {
  clientId: string;
  app?: { id: string; name: string; projectId: string; projectName: string };
}

/** One sign-in session of a user as the console shows it: never its id, cookie or any token. */
export interface UserSession {
  signedInAt: Date | null;
  expiresAt: Date | null;
  /** The apps the session authorized, by client id (sorted); name and project only for an app of the user's org. */
  apps: SessionApp[];
  /** How the person signed in (RFC 8176 amr, as in the ID token), when the session holds it. */
  amr: string[];
}

/**
 * A user's open sessions, newest sign-in first, at most 50 (the console's user page). oidc-provider 9's Session
 * payload holds the account, `loginTs` (seconds), `amr` and `authorizations` keyed by client id (whose members, the
 * sid and grant id, are not read). Only the user's rows are read (oidc_payloads_account_idx, whose predicate it
 * repeats as the DELETE above does; test/users/artifact-plans.test.ts), and only for a user of the org: $1 the user,
 * $2 the org, so another org's user gives nothing: the user's org is read by its primary key (with an EXISTS on
 * id and org the planner may read the org's whole users_org_created_idx instead, every user of a big org). Each
 * client id names its app by apps_client_id_unique, one subquery per client so the plan probes the index rather than
 * reading every app. A payload of another shape gives empty lists, never an error.
 */
export const USER_SESSIONS = `
  SELECT to_timestamp((s.payload->>'loginTs')::float8) AS "signedInAt", s.expires_at AS "expiresAt",
         (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('clientId', k, 'app',
                   (SELECT jsonb_build_object('id', a.id, 'name', a.name, 'projectId', p.id, 'projectName', p.name)
                      FROM apps a JOIN projects p ON p.id = a.project_id AND p.org_id = $2 WHERE a.client_id = k)))
                   ORDER BY k), '[]')
            FROM jsonb_object_keys(CASE WHEN jsonb_typeof(s.payload->'authorizations') = 'object'
                                        THEN s.payload->'authorizations' ELSE '{}' END) AS k
         ) AS apps,
         ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(s.payload->'amr') = 'array'
                                                     THEN s.payload->'amr' ELSE '[]' END)) AS amr
  FROM oidc_payloads s
  WHERE s.payload ? 'accountId' AND s.payload->>'accountId' = $1 AND s.model = 'Session'
    AND (s.expires_at IS NULL OR s.expires_at > now())
    AND (SELECT u.org_id FROM users u WHERE u.id = $1) = $2
  ORDER BY "signedInAt" DESC NULLS LAST
  LIMIT 50`;

export async function findUserSessions(db: Queryable, orgId: string, userId: string): Promise<UserSession[]> {
  const { rows } = await db.query<UserSession>(USER_SESSIONS, [userId, orgId]);
  return rows;
}
