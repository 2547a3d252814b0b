// oidc-provider's storage in Postgres. One table for every model (its statements are in ../queries.ts); ids are stored
// as SHA-256 hashes and payloads without the values the ids hash (storedPayload), so the table never holds a usable
// token, code, session or interaction id. Clients are not stored here: they are built from apps and machine users on
// every lookup (clients.ts).
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Db } from '../../platform/db.ts';
import type { TokenReference } from '../access-tokens.ts';
import { hashId, presentedPayload, storedPayload } from '../payloads.ts';
import { deferredRow, deferRow, dropScoped, takeScoped, writeDeferred } from '../../platform/request-scope.ts';
import { PAYLOAD_AHEAD } from '../read-ahead.ts';
import { PAYLOAD_ROWS } from '../write-behind.ts';
import {
  claimPayload,
  consumePayload,
  deleteGrantRowsExcept,
  deletePayload,
  deletePayloadsOfGrant,
  findConsumption,
  findPayload,
  findPayloadByUid,
  upsertPayload,
  type FoundPayload,
} from '../payload-store.ts';

export interface AdapterHooks {
  findClient(clientId: string): Promise<AdapterPayload | undefined>;
  /** Maps a presented access token value to its storage id; JWT access tokens are verified here
   *  (jwt-access-tokens.ts). */
  resolveAccessToken(value: string): Promise<TokenReference | undefined>;
}

/**
 * A one-time assertion (client assertion, JWT-profile assertion) presented a second time. oidc-provider's replay
 * check is find-then-save, which lets concurrent copies through; the insert below is atomic. Client authentication
 * renders it as 401 invalid_client.
 */
export class AssertionReplayed extends errors.InvalidClientAuth {}

/**
 * Refresh token rotation (RFC 9700 §4.14): a rotated refresh token presented again within `refreshReuseGrace` seconds
 * (a client retry, a race between two tabs) is refused without further harm; after that, reuse revokes the grant.
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
  // A row this request holds back (write-behind.ts) is what the database will hold: a copy, as a read would return.
  // Else the row read ahead for this request (read-ahead.ts), else the database's.
  const findRow = async (model: string, id: string): Promise<FoundPayload | undefined> => {
    const held = deferredRow(PAYLOAD_ROWS, `${model}:${id}`);
    if (held)
      return held.row ? { payload: structuredClone(held.row.payload) as AdapterPayload, consumed_at: null } : undefined;
    const ahead = takeScoped(PAYLOAD_AHEAD, `${model}:${id}`);
    return ahead ? ahead.value : findPayload(db, model, id);
  };
  return class PostgresAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      dropScoped(PAYLOAD_AHEAD, `${this.model}:${hashId(id)}`);
      if (this.model === 'ReplayDetection') {
        await writeDeferred();
        const claimed = await claimPayload(db, this.model, hashId(id), payload, Math.max(1, Math.ceil(expiresIn)));
        if (!claimed) throw new AssertionReplayed();
        return;
      }
      // A pending authorization request nobody acts on is dropped after the (short) interaction TTL; each save (the
      // start, every form post of the login pages, the result) grants that TTL again, within the absolute lifetime
      // oidc-provider passes in (INTERACTION_MAX_AGE, which its cookies also carry).
      if (this.model === 'Interaction') expiresIn = Math.min(expiresIn, options.interactionTtl);
      const grantId = payload.grantId ?? (this.model === 'Grant' ? id : null);
      const row = {
        model: this.model,
        id: hashId(id),
        payload: storedPayload(this.model, id, payload),
        grantId,
        uid: payload.uid ?? null,
        ttl: expiresIn ? Math.ceil(expiresIn) : null,
      };
      if (!deferRow(PAYLOAD_ROWS, `${this.model}:${row.id}`, row)) await upsertPayload(db, row);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return hooks.findClient(id);
      let jwt = false;
      if (this.model === 'AccessToken') {
        const ref = await hooks.resolveAccessToken(id);
        if (!ref) return undefined;
        ({ jti: id, jwt } = ref);
      }
      const row = await findRow(this.model, hashId(id));
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
      await writeDeferred();
      return findPayloadByUid(db, this.model, uid);
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // the device flow is not offered
    }

    async consume(id: string): Promise<void> {
      // Atomic: of concurrent redemptions exactly one sets consumed_at (RFC 6749 §4.1.2). A losing code redemption
      // revokes the grant, so the winner's tokens die too, even those it saves after this point (the grant is gone).
      await writeDeferred();
      if (await consumePayload(db, this.model, hashId(id))) return;
      const consumed = await findConsumption(db, this.model, hashId(id));
      if (consumed?.grant_id && !inGrace(this.model, consumed.consumed_at))
        await deleteGrantRowsExcept(db, consumed.grant_id, this.model);
      throw new errors.InvalidGrant('grant request is invalid');
    }

    async destroy(id: string): Promise<void> {
      dropScoped(PAYLOAD_AHEAD, `${this.model}:${hashId(id)}`);
      if (!deferRow(PAYLOAD_ROWS, `${this.model}:${hashId(id)}`, null)) await deletePayload(db, this.model, hashId(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await writeDeferred();
      await deletePayloadsOfGrant(db, this.model, grantId);
    }
  };
}
