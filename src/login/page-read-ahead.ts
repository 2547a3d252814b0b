// The login page's rows read ahead: the interaction (which the provider then takes from here, as on the
// authorization endpoint: oidc/read-ahead.ts), the active JWT IdPs on the login policy's list for its buttons
// and the login policy's ways in, with one statement instead of one each. Keyed by the URL's
// interaction ID: the provider looks the interaction up by its cookie, and a cookie naming another one reads that
// one from the database.
import type { Queryable } from '../platform/db.ts';
import { hashId } from '../oidc/payloads.ts';
import { revivePayload, takeReadAhead, within } from '../oidc/read-ahead.ts';
import type { PayloadWithConsumption } from '../oidc/queries.ts';
import { listLoginIdps } from '../idps/queries.ts';
import { LOGIN_POLICY_AHEAD } from '../login-policy/current.ts';
import { LOGIN_POLICY_SQL, type LoginPolicyRow } from '../login-policy/queries.ts';

const LOGIN_PAGE_SQL = `
  SELECT (SELECT to_jsonb(i) FROM (
            SELECT payload, consumed_at FROM oidc_payloads
             WHERE model = 'Interaction' AND id = $1 AND (expires_at IS NULL OR expires_at > now())) i
         ) AS interaction_row,
         (SELECT coalesce(jsonb_agg(jsonb_build_object('id', i.id, 'name', i.name) ORDER BY p.created_at, i.id), '[]')
            FROM login_policy_idps p JOIN idps i ON i.id = p.idp_id
           WHERE p.instance_id = $2 AND i.state = 'active') AS idps,
         (SELECT to_jsonb(p) FROM (${LOGIN_POLICY_SQL}) p) AS policy`;

export interface IdpButton {
  id: string;
  name: string;
}

/** Runs fn with the login page's rows read ahead; without them (a database error) each is read when asked for. */
export async function withLoginPageRows<T>(db: Queryable, uid: string, instanceId: string, fn: () => Promise<T>) {
  const rows = new Map<string, unknown>();
  const read = await db
    .query<{ interaction_row: PayloadWithConsumption | null; idps: IdpButton[]; policy: LoginPolicyRow | null }>(
      LOGIN_PAGE_SQL,
      [hashId(uid), instanceId],
    )
    .catch(() => undefined);
  if (read) {
    rows.set(`Interaction:${hashId(uid)}`, revivePayload(read.rows[0]!.interaction_row));
    rows.set(`idps:${instanceId}`, read.rows[0]!.idps);
    rows.set(LOGIN_POLICY_AHEAD, read.rows[0]!.policy);
  }
  return within(rows, fn);
}

/** The active IdPs on the login policy's list for the login page's buttons: read ahead, else from the database
 *  (the same rows as listLoginIdps). */
export async function idpButtons(db: Queryable, instanceId: string): Promise<IdpButton[]> {
  return takeReadAhead<IdpButton[]>(`idps:${instanceId}`)?.row ?? listLoginIdps(db, instanceId);
}
