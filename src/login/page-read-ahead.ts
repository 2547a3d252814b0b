// The login page's rows read ahead with one statement instead of one each, and handed to the request's scope
// (platform/request-scope.ts) for the layers that ask for them: the interaction to the provider (as on the
// authorization endpoint: oidc/read-ahead.ts), the login policy's ways in to login-policy/current.ts, and the active
// JWT IdPs on the policy's list to the page's buttons (idpButtons). Keyed by the URL's interaction ID: the provider
// looks the interaction up by its cookie, and a cookie naming another one reads that one from the database.
import type { Queryable } from '../platform/db.ts';
import { scopeKey, scoped, takeScoped, withScoped } from '../platform/request-scope.ts';
import { hashId } from '../oidc/payloads.ts';
import { PAYLOAD_AHEAD, revivePayload } from '../oidc/read-ahead.ts';
import type { PayloadWithConsumption } from '../oidc/queries.ts';
import { listLoginIdps } from '../idps/queries.ts';
import { LOGIN_POLICY_AHEAD, type LoginPolicyJson } from '../login-policy/current.ts';
import { LOGIN_POLICY_SQL } from '../login-policy/queries.ts';

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

/** The buttons of an instance's login page, by instance ID. */
const IDP_BUTTONS_AHEAD = scopeKey<IdpButton[]>('login:idp-buttons');

/** Runs fn with the login page's rows read ahead; without them (a database error) each is read when asked for. */
export async function withLoginPageRows<T>(db: Queryable, uid: string, instanceId: string, fn: () => Promise<T>) {
  const read = await db
    .query<{ interaction_row: PayloadWithConsumption | null; idps: IdpButton[]; policy: LoginPolicyJson | null }>(
      LOGIN_PAGE_SQL,
      [hashId(uid), instanceId],
    )
    .catch(() => undefined);
  const row = read?.rows[0];
  const rows = row
    ? [
        scoped(PAYLOAD_AHEAD, revivePayload(row.interaction_row), `Interaction:${hashId(uid)}`),
        scoped(IDP_BUTTONS_AHEAD, row.idps, instanceId),
        scoped(LOGIN_POLICY_AHEAD, row.policy ?? undefined),
      ]
    : [];
  return withScoped(rows, fn);
}

/** The active IdPs on the login policy's list for the login page's buttons: read ahead, else from the database
 *  (the same rows as listLoginIdps). */
export async function idpButtons(db: Queryable, instanceId: string): Promise<IdpButton[]> {
  return takeScoped(IDP_BUTTONS_AHEAD, instanceId)?.value ?? listLoginIdps(db, instanceId);
}
