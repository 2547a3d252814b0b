// oidc-provider's storage in Postgres (oidc-provider-findings §15). One table for every model; ids are stored as
// SHA-256 hashes and payloads without the values the ids hash (storedPayload), so the table never holds a usable
// token, code, session or interaction id (security.md §7, issue 13 item 3). Clients are not stored here: they are
// built from apps and machine users on every lookup (clients.ts).
import { createHash } from 'node:crypto';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Db, Queryable } from '../platform/db.ts';
import type { TokenReference } from './access-tokens.ts';

export interface AdapterHooks {
  findClient(clientId: string): Promise<AdapterPayload | undefined>;
  /** Maps a presented access token value to its storage id; JWT access tokens are verified here
   *  (jwt-access-tokens.ts). */
  resolveAccessToken(value: string): Promise<TokenReference | undefined>;
}

/** Storage id of a token, code or session id: its SHA-256 (security.md §7). */
export const hashId = (id: string) => createHash('sha256').update(id).digest('base64url');

/**
 * A payload as stored: without the bearer values oidc-provider keeps in it (issue 13 item 3). Every model's `jti` is
 * its id, the value presented (a token, a code, the session cookie, an interaction's URL and cookie); an
 * Interaction also names its id in `returnTo` (the resume URL) and its browser session's cookie value in
 * `session.cookie`, which nothing reads. `find` is always called with the id, so presentedPayload puts it back.
 * Not bearer values, and kept: a grant id (a reference between rows, never accepted from a client: the grant_id
 * column joins on it), a session's `uid` (the sessionUid of its tokens; the cookie carries the jti) and `sid`
 * (printed in ID tokens). Rows of older versions still hold a jti, equal to the id; migration 0046 removes them.
 */
export function storedPayload<P extends { jti?: string }>(model: string, id: string, payload: P): Omit<P, 'jti'> {
  const { jti: _id, ...stored } = payload;
  if (model !== 'Interaction') return stored;
  const interaction = stored as { returnTo?: string; session?: { cookie?: string } };
  if (interaction.returnTo) interaction.returnTo = interaction.returnTo.replaceAll(id, ID_PLACEHOLDER);
  if (interaction.session?.cookie) {
    const { cookie: _cookie, ...session } = interaction.session;
    interaction.session = session;
  }
  return stored;
}

// Stands for the interaction's id in its stored resume URL: an issuer URL (an origin) and a route cannot contain it.
const ID_PLACEHOLDER = '{id}';

function presentedPayload(model: string, id: string, stored: AdapterPayload): AdapterPayload {
  const payload = { ...stored, jti: id };
  if (model === 'Interaction' && typeof payload.returnTo === 'string')
    payload.returnTo = payload.returnTo.replaceAll(ID_PLACEHOLDER, id);
  return payload;
}

/**
 * A one-time assertion (client assertion, JWT-profile assertion) presented a second time. oidc-provider's replay
 * check is find-then-save, which lets concurrent copies through; the insert below is atomic. Client authentication
 * renders it as 401 invalid_client.
 */
export class AssertionReplayed extends errors.InvalidClientAuth {}

/**
 * security.md §4 / compat.md §6: a rotated refresh token presented again within `refreshReuseGrace` seconds (a
 * client retry, a race between two tabs) is refused without further harm; after that, reuse revokes the grant.
 */
export interface AdapterOptions {
  refreshReuseGrace: number;
  /** Seconds an interaction row is kept per save (GATEHOUSE_INTERACTION_TTL), below its absolute lifetime. */
  interactionTtl: number;
}

export function createAdapterClass(db: Db, hooks: AdapterHooks, options: AdapterOptions) {
  const inGrace = (model: string, consumedAt: Date | null) =>
    model === 'RefreshToken' &&
    consumedAt !== null &&
    consumedAt.getTime() > Date.now() - options.refreshReuseGrace * 1000;
  return class PostgresAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'ReplayDetection') {
        const { rowCount } = await db.query(
          `INSERT INTO oidc_payloads (model, id, payload, expires_at) VALUES ($1, $2, $3, ` +
            `now() + make_interval(secs => $4::int))
           ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE SET payload = EXCLUDED.payload, ` +
            `expires_at = EXCLUDED.expires_at
             WHERE oidc_payloads.expires_at <= now()`,
          [this.model, hashId(id), payload, Math.max(1, Math.ceil(expiresIn))],
        );
        if (rowCount !== 1) throw new AssertionReplayed();
        return;
      }
      // Issue 26 §3: a pending authorization request nobody acts on is dropped after the (short) interaction TTL;
      // each save (the start, every form post of the login pages, the result) grants that TTL again, within the
      // absolute lifetime oidc-provider passes in (INTERACTION_MAX_AGE, which its cookies also carry).
      if (this.model === 'Interaction') expiresIn = Math.min(expiresIn, options.interactionTtl);
      const grantId = payload.grantId ?? (this.model === 'Grant' ? id : null);
      await db.query(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, ` +
          `CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END)
         ON CONFLICT ON CONSTRAINT oidc_payloads_pkey DO UPDATE
           SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
               expires_at = EXCLUDED.expires_at, updated_at = clock_timestamp()`,
        [
          this.model,
          hashId(id),
          storedPayload(this.model, id, payload),
          grantId,
          payload.uid ?? null,
          expiresIn ? Math.ceil(expiresIn) : null,
        ],
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return hooks.findClient(id);
      let jwt = false;
      if (this.model === 'AccessToken') {
        const ref = await hooks.resolveAccessToken(id);
        if (!ref) return undefined;
        ({ jti: id, jwt } = ref);
      }
      const { rows } = await db.query<{ payload: AdapterPayload; consumed_at: Date | null }>(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [this.model, hashId(id)],
      );
      const row = rows[0];
      if (!row) return undefined;
      // The jti of a JWT access token is printed in the token and in introspection: it is not a bearer token.
      if (this.model === 'AccessToken' && Boolean(row.payload.gatehouseJwt) !== jwt) return undefined;
      if (inGrace(this.model, row.consumed_at)) return undefined; // unknown → invalid_grant, the grant lives on
      const payload = presentedPayload(this.model, id, row.payload);
      return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      // Non-unique uid: a session id rotation writes a new row with the same uid; the newest one is current. The
      // session comes back without its id (storedPayload): the provider reads such a session (token binding, the
      // interaction's session check) and never saves it.
      const { rows } = await db.query<{ payload: AdapterPayload }>(
        `SELECT payload FROM oidc_payloads
         WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())
         ORDER BY updated_at DESC LIMIT 1`,
        [this.model, uid],
      );
      return rows[0]?.payload;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // the device flow is not offered
    }

    async consume(id: string): Promise<void> {
      // Atomic: of concurrent redemptions exactly one sets consumed_at (security.md §3). A losing code redemption
      // revokes the grant, so the winner's tokens die too, even those it saves after this point (the grant is gone).
      const { rowCount } = await db.query(
        'UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL',
        [this.model, hashId(id)],
      );
      if (rowCount === 1) return;
      const { rows } = await db.query<{ grant_id: string | null; consumed_at: Date | null }>(
        'SELECT grant_id, consumed_at FROM oidc_payloads WHERE model = $1 AND id = $2',
        [this.model, hashId(id)],
      );
      const grantId = rows[0]?.grant_id;
      if (grantId && !inGrace(this.model, rows[0]!.consumed_at))
        await db.query('DELETE FROM oidc_payloads WHERE grant_id = $1 AND model <> $2', [grantId, this.model]);
      throw new errors.InvalidGrant('grant request is invalid');
    }

    async destroy(id: string): Promise<void> {
      await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [this.model, hashId(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
    }
  };
}

/** Deletes expired rows in bounded batches; returns how many went. */
export async function sweepExpired(db: Db, batchSize = 1000, maxBatches = 10): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const { rowCount } = await db.query(
      `DELETE FROM oidc_payloads WHERE (model, id) IN (
         SELECT model, id FROM oidc_payloads WHERE expires_at < now() - interval '1 minute' LIMIT $1)`,
      [batchSize],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) break;
  }
  return total;
}

/** Ends everything oidc-provider holds for a user (sessions, grants, codes, tokens) in the caller's transaction:
 *  a deactivated user's tokens are inactive at once on every process (issue 6, DeactivateUser). */
export async function deleteUserArtifacts(tx: Queryable, userId: string): Promise<number> {
  const { rowCount } = await tx.query(
    `DELETE FROM oidc_payloads WHERE payload->>'accountId' = $1
       OR grant_id IN (SELECT grant_id FROM oidc_payloads WHERE payload->>'accountId' = $1 AND grant_id IS NOT NULL)`,
    [userId],
  );
  return rowCount ?? 0;
}
