// SQL of the users' consents to apps (migrations/0045_app_consents.sql).
import type { Queryable } from '../platform/db.ts';

export interface ConsentTargetRow {
  app_id: string;
  app_name: string;
  /** The organization of the app's project. */
  org_id: string;
  org_name: string;
  /** Whether the user has consented to the scope for this app. */
  consented: boolean;
}

/** An OIDC app by client ID with its organization, and whether the user has consented to the scope for it. */
export async function findConsentTarget(
  db: Queryable,
  clientId: string,
  userId: string,
  scope: string,
): Promise<ConsentTargetRow | undefined> {
  const { rows } = await db.query<ConsentTargetRow>(
    `SELECT a.id AS app_id, a.name AS app_name, p.org_id, o.name AS org_name,
       EXISTS (SELECT 1 FROM app_consents c WHERE c.user_id = $2 AND c.app_id = a.id AND c.scope = $3) AS consented
     FROM apps a JOIN projects p ON p.id = a.project_id JOIN orgs o ON o.id = p.org_id
     WHERE a.client_id = $1 AND a.kind = 'oidc'`,
    [clientId, userId, scope],
  );
  return rows[0];
}

/** Records the consent of an active human user; returns the user's organization when a new row was written
 *  (undefined when the consent existed already or the user is not an active human). */
export async function insertConsent(
  tx: Queryable,
  c: { userId: string; appId: string; scope: string },
): Promise<string | undefined> {
  const { rows } = await tx.query<{ user_org_id: string }>(
    `INSERT INTO app_consents (user_id, app_id, scope)
     SELECT u.id, $2, $3 FROM users u WHERE u.id = $1 AND u.type = 'human' AND u.state = 'active'
     ON CONFLICT ON CONSTRAINT app_consents_pkey DO NOTHING
     RETURNING (SELECT org_id FROM users WHERE id = $1) AS user_org_id`,
    [c.userId, c.appId, c.scope],
  );
  return rows[0]?.user_org_id;
}
