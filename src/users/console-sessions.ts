// The admin console's sessions, kept on the server so that they can be ended there: one row
// per signed-in browser (migrations/0210_console_sessions.sql). The browser's cookie holds a random id of 256 bits;
// the row holds only its SHA-256, so a copy of the table signs no one in (OWASP ASVS §7.2.3). "Sign out" deletes the
// row. Each row names the OP session whose sign-in created it, and is valid only while that session lives, so
// signing out of the login session anywhere (the account page, an app's RP-initiated logout) ends it too (ASVS
// §7.4.1): the OP session's end is read where the console reads its row, rather than deleting console rows where the
// adapter destroys a Session, because a destroy names only the session's id (which every id rotation also
// destroys, the session living on under its uid) and because an OP session that expires or is deleted by any
// other statement is then covered as well. The statements that end a user's OP sessions (a password change or
// reset: passwords/queries.ts; locking, deactivating, removing the user or its org: artifact-queries.ts) delete
// the user's rows in the same statement (ASVS §7.4.1, §7.4.3). Every console request reads its row with the user,
// one statement, so an ended session is refused by every node at its next request; no process keeps a copy.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../platform/db.ts';
import { USER_COLUMNS, type UserRow } from './queries.ts';

export interface ConsoleSessionLimits {
  /** Ends a session unused this long (GATEHOUSE_CONSOLE_IDLE_TTL). */
  idleSeconds: number;
  /** Ends a session this long after its sign-in, used or not. */
  absoluteSeconds: number;
  /** Its idle clock is moved on (a write) at most this often. */
  refreshSeconds: number;
}

const idHash = (id: string) => createHash('sha256').update(id).digest('base64url');

/** A new session of the user; returns the id for the browser's cookie (never stored). */
export async function createConsoleSession(
  db: Queryable,
  signIn: { userId: string; opSessionUid: string },
  limits: ConsoleSessionLimits,
): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO console_sessions (id_hash, user_id, op_session_uid, created_at, seen_at, expires_at)
     VALUES ($1, $2, $3, now(), now(), now() + make_interval(secs => least($4::float8, $5::float8)))`,
    [idHash(id), signIn.userId, signIn.opSessionUid, limits.idleSeconds, limits.absoluteSeconds],
  );
  return id;
}

/** The statement of findConsoleSessionUser: $1 the id's hash, $2 idle, $3 absolute, $4 refresh seconds. */
export const CONSOLE_SESSION_USER = `
  WITH live AS (
     SELECT s.id_hash, s.user_id, s.seen_at FROM console_sessions s
     WHERE s.id_hash = $1 AND s.expires_at > now()
       AND EXISTS (SELECT 1 FROM oidc_payloads p
                   WHERE p.model = 'Session' AND p.uid = s.op_session_uid
                     AND (p.expires_at IS NULL OR p.expires_at > now()))),
   touched AS (
     UPDATE console_sessions
     SET seen_at = now(),
         expires_at = least(now() + make_interval(secs => $2::float8), created_at + make_interval(secs => $3::float8))
     WHERE id_hash = (SELECT id_hash FROM live WHERE seen_at <= now() - make_interval(secs => $4::float8))
     RETURNING id_hash)
   SELECT ${USER_COLUMNS}, EXISTS (SELECT 1 FROM touched) AS session_refreshed
   FROM live s JOIN users u ON u.id = s.user_id JOIN orgs o ON o.id = u.org_id`;

/**
 * The user of an unexpired session whose OP session still lives, with the user's row (whatever its state: the caller
 * checks it), or undefined. The OP session is its newest unexpired Session row of that uid (an id rotation writes a
 * new row under the same uid, payload-store.ts findPayloadByUid), found by oidc_payloads_uid_idx in the same
 * statement. `refreshed`: its idle clock was moved on by this statement, at most once per `refreshSeconds`, so a page
 * is one statement that writes only when a minute has passed (the CTE's UPDATE matches no row otherwise).
 */
export async function findConsoleSessionUser(
  db: Queryable,
  id: string,
  limits: ConsoleSessionLimits,
): Promise<{ user: UserRow; refreshed: boolean } | undefined> {
  const { rows } = await db.query<UserRow & { session_refreshed: boolean }>(CONSOLE_SESSION_USER, [
    idHash(id),
    limits.idleSeconds,
    limits.absoluteSeconds,
    limits.refreshSeconds,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  const { session_refreshed: refreshed, ...user } = row;
  return { user, refreshed };
}

/** "Sign out": this browser's session ends. */
export async function deleteConsoleSession(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash(id)]);
}

/**
 * A data-modifying CTE that ends every console session of the users `userIds` names (an SQL expression: `$1`, or an
 * array's `ANY(...)`), for the statements that end the users' OP sessions: one statement, one mechanism for both
 * kinds of session. Its name must not be used by the statement.
 */
export const endConsoleSessionsOfUsers = (userIds: string) =>
  `console_sessions_ended AS (DELETE FROM console_sessions WHERE user_id = ${userIds})`;

/** The same for the one user $1. */
export const END_CONSOLE_SESSIONS_OF_USER = endConsoleSessionsOfUsers('$1');

/** Removes expired sessions (with the background sweep of expired OIDC rows, oidc/plugin.ts); how many went. Only
 *  people who administer have console sessions, so one statement is a small one. */
export async function sweepExpiredConsoleSessions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM console_sessions WHERE expires_at < now()');
  return rowCount ?? 0;
}
