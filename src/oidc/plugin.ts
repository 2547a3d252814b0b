// The OIDC layer's composition: oidc-provider (provider/) and the hand-written fast endpoints (fast/) built over the
// same storage, keys and rules, mounted by edge/routes.ts. The provider is rebuilt when the signing keys change
// (keys.ts), in this and every other process on the same database.
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { scheduleJob } from '../platform/jobs.ts';
import type { SecretBox } from '../platform/secrets.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { InstanceRow } from '../instance/queries.ts';
import type { MembershipRow } from '../members/queries.ts';
import { sweepExpiredConsoleSessions } from '../users/console-sessions.ts';
import { scopeGrantedSilently } from '../consents/service.ts';
import { createFindAccount } from './accounts.ts';
import { activeAccessTokenFinder, activeBearerFinder, type ActiveAccessToken } from './access-tokens.ts';
import { createClientRateLimit } from './client-rate-limit.ts';
import { JwtAccessTokens } from './jwt-access-tokens.ts';
import { loadKeySet, type KeySet } from './keys.ts';
import { machineTokenWriter, type MachineTokenDeps } from './machine-token-issuer.ts';
import type { ProviderPages } from './pages.ts';
import { hashId } from './payloads.ts';
import { sweepExpired } from './payload-store.ts';
import { readAhead } from './read-ahead.ts';
import { MANAGEMENT_API_SCOPE } from './scopes.ts';
import { AssertionReplayed, createAdapterClass } from './provider/adapter.ts';
import { findClientMetadata } from './provider/clients.ts';
import { builtInClientMetadata } from './account-client.ts';
import { patchClients } from './provider/client-rules.ts';
import { renderDocuments } from './provider/documents.ts';
import { registerMachineGrants } from './provider/machine-grants.ts';
import { observeProvider } from './provider/observe.ts';
import { createProvider } from './provider/provider.ts';
import { installIdTokenClaims } from './provider/id-token-claims.ts';
import { issuedClaims } from './token-claims.ts';
import { signInRefusal } from './sign-in-checks.ts';
import { providerResponses } from './provider/responses.ts';
import { revocationAllowed } from './provider/revocation.ts';
import { machineTokenFastPath } from './fast/token.ts';
import { userGrantFastPath } from './fast/user-grants.ts';
import { mountOidcRoutes } from './edge/routes.ts';
import { unitOfWork } from './write-behind.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OIDC provider's services for the other parts of the app (management API auth, login pages). */
    oidc: Oidc;
  }
}

export interface VerifiedAccessToken {
  tokenId: string;
  userId: string;
  /** The user's organization. */
  orgId: string;
  clientId: string;
  /** The project of the app the token was issued to (none for machine grants): ListMyProjectOrgs. */
  projectId?: string;
  scopes: ReadonlySet<string>;
  expiresAt: Date;
  /** A machine user's token (machine grants): it comes from no login. */
  machine: boolean;
  /** When the login that issued a user's token authenticated (auth_time, seconds since the epoch), as the token
   *  carries it (provider.ts extraTokenClaims, fast/user-grants.ts); a refresh keeps the login's. */
  authTime?: number;
}

/** A management API caller's token, with what the permission check needs, read in the same statement. */
export interface VerifiedBearer extends VerifiedAccessToken {
  memberships: MembershipRow[];
  /** The org in context: the one asked for, else the user's own, and whether it exists. */
  contextOrg: { id: string; exists: boolean };
}

export interface Oidc {
  /** Checks an access token (opaque or JWT) as introspection does: exists, not expired, not revoked, user active. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | undefined>;
  /** verifyAccessToken for the management API, with the user's memberships and the org in context (`contextOrgId`, else
   *  the user's own org), in one statement shared by concurrent calls. */
  verifyBearer(token: string, contextOrgId: string | undefined): Promise<VerifiedBearer | undefined>;
  /** The current provider; it is replaced on key rotation, so call this per request. */
  provider(): Provider;
  close(): Promise<void>;
}

/** What the OIDC layer takes from the composition root (app.ts). */
export interface OidcDeps {
  config: Config;
  db: Db;
  log: Logger;
  secrets: SecretBox;
  instance: InstanceRow;
  metrics: Metrics;
  /** The login pages' hooks (src/oidc/pages.ts). */
  pages: ProviderPages;
}

export async function registerOidc(app: FastifyInstance, deps: OidcDeps): Promise<Oidc> {
  const { config, db, secrets, log, pages } = deps;
  // The management API's audience entry: ZITADEL resolves its "zitadel" project alias to a project ID; the instance ID
  // plays that role here.
  const managementAudience = deps.instance.id;
  const keyOptions = {
    activationDelay: config.keys.activationDelay,
    retainSeconds: Math.max(config.ttl.accessToken, config.ttl.idToken),
    rotationDays: config.keyRotationDays,
  };
  let keys = await loadKeySet(db, secrets, keyOptions);
  const jwtAccessTokens = new JwtAccessTokens(config.issuer, () => keys, managementAudience);
  const findAccount = createFindAccount(db);
  const Adapter = createAdapterClass(
    db,
    {
      // the account page's and the console's built-in clients first (account-client.ts), then apps and machines
      findClient: async (id) =>
        builtInClientMetadata(id, config.issuer) ?? findClientMetadata(db, id, config.requirePar),
      resolveAccessToken: (value) => jwtAccessTokens.resolve(value),
    },
    { refreshReuseGrace: config.ttl.refreshTokenReuseGrace, interactionTtl: config.ttl.interaction },
  );
  const machineTokens: MachineTokenDeps = {
    writeToken: machineTokenWriter(db),
    issuer: config.issuer,
    ttl: { accessToken: config.ttl.accessToken, idToken: config.ttl.idToken },
    assertionMaxAge: config.assertionMaxAge,
    signer: jwtAccessTokens,
    // oidc-provider's ReplayDetection ids, so an assertion used on one path cannot be replayed on the other
    claimOnce: (issuer, jti, expiresAt) =>
      new Adapter('ReplayDetection')
        .upsert(hashId(`${issuer}${jti}`), { iss: issuer, jti } as never, expiresAt - Math.floor(Date.now() / 1000))
        .then(
          () => true,
          (error) => {
            if (error instanceof AssertionReplayed) return false;
            throw error;
          },
        ),
  };

  const claimsOfIssuedTokens = issuedClaims(db);
  const clientRateLimit = createClientRateLimit(config.rateLimit.perClient, new Set(config.rateLimit.exempt));
  const build = async (keySet: KeySet) => {
    const provider = createProvider(
      {
        config,
        secrets,
        Adapter,
        findAccount,
        revocationAllowed: revocationAllowed as never,
        pages,
        managementScopeAllowed: (userId, clientId) =>
          scopeGrantedSilently(db, deps.instance.default_org_id, { userId, clientId, scope: MANAGEMENT_API_SCOPE }),
        signInRefusal: (userId, client, scopes) => signInRefusal(db, userId, client, scopes),
      },
      keySet,
    );
    registerMachineGrants(provider, machineTokens);
    jwtAccessTokens.install(provider, claimsOfIssuedTokens);
    installIdTokenClaims(provider, claimsOfIssuedTokens);
    patchClients(provider, secrets);
    // outermost: the rows the request saved are written before any response leaves (write-behind.ts)
    provider.use((_ctx, next) => unitOfWork(db, next));
    provider.use(providerResponses);
    provider.use(clientRateLimit.middleware);
    observeProvider(provider, deps.metrics, log);
    // iss in every authorization response, implicit ones included (RFC 9207; the library skips it there)
    (provider.on as (event: string, listener: (ctx: unknown, out: Record<string, unknown>) => void) => void)(
      'authorization.success',
      (_ctx, out) => {
        out.iss ??= config.issuer;
      },
    );
    const callback = provider.callback();
    return { provider, callback, documents: await renderDocuments(callback, config.issuer) };
  };
  let current = await build(keys);

  const reloadKeys = async () => {
    const next = await loadKeySet(db, secrets, keyOptions);
    if (next.fingerprint === keys.fingerprint) return;
    keys = next;
    current = await build(next);
    log.info(
      { signingKid: next.signingKid, published: next.publicJwks.length },
      'signing keys changed; provider rebuilt',
    );
  };
  // Every worker process reloads the keys it signs with; a rotation that falls due is added once (keys.ts: a
  // transaction's advisory lock and a second look). The sweep runs once per deployment.
  const reloadTimer = setInterval(() => {
    reloadKeys().catch((err) => log.error({ err }, 'signing key reload failed'));
  }, config.keys.reloadIntervalMs);
  reloadTimer.unref();
  const stopSweep = scheduleJob(db, log, {
    name: 'oidc-sweep',
    intervalMs: config.oidcSweepIntervalMs,
    // a backlog takes the sweep up to half an interval (sweepExpired)
    run: async () => {
      const removed = await sweepExpired(db, { until: Date.now() + config.oidcSweepIntervalMs / 2 });
      deps.metrics.sweptRows.inc({ model: 'oidc' }, removed);
      // the console's sessions expire on the same clock
      deps.metrics.sweptRows.inc({ model: 'console' }, await sweepExpiredConsoleSessions(db));
    },
  });

  const resolveToken = (value: string) => jwtAccessTokens.resolve(value);
  const findActiveAccessToken = activeAccessTokenFinder(db);
  const findActiveBearer = activeBearerFinder(db);
  const machineGrants = machineTokenFastPath({ ...machineTokens, db, secrets });
  const userGrants = userGrantFastPath({
    db,
    secrets,
    issuer: config.issuer,
    ttl: config.ttl,
    signer: jwtAccessTokens,
  });
  mountOidcRoutes(app, {
    config,
    pages,
    callback: () => current.callback,
    documents: () => current.documents,
    clientRateLimit,
    fastToken: async (form, authorization, jwtProfileIssuer) => {
      const served =
        (await userGrants(form, authorization)) ?? (await machineGrants(form, authorization, jwtProfileIssuer));
      if (served) deps.metrics.tokensIssued.inc({ grant: String(form.get('grant_type')) });
      return served;
    },
    introspection: {
      db,
      issuer: config.issuer,
      secrets,
      managementAudience,
      resolveToken,
      claimOnce: machineTokens.claimOnce,
      rateLimit: clientRateLimit,
    },
    userinfo: { db, issuer: config.issuer, resolveToken, findActiveAccessToken },
    readAhead: readAhead(db),
  });

  const oidc: Oidc = {
    provider: () => current.provider,
    async verifyAccessToken(value) {
      const ref = await resolveToken(value);
      const token = ref && (await findActiveAccessToken(ref));
      return token && verified(token);
    },
    async verifyBearer(value, contextOrgId) {
      const ref = await resolveToken(value);
      const bearer = ref && (await findActiveBearer(ref, contextOrgId));
      if (!bearer) return undefined;
      const contextOrg = { id: contextOrgId ?? bearer.token.user.org_id, exists: bearer.contextOrgExists };
      return { ...verified(bearer.token), memberships: bearer.memberships, contextOrg };
    },
    async close() {
      clearInterval(reloadTimer);
      stopSweep();
    },
  };
  app.decorate('oidc', oidc);
  app.addHook('onClose', async () => oidc.close());
  return oidc;
}

function verified(token: ActiveAccessToken): VerifiedAccessToken {
  const authTime = token.payload.extra?.auth_time;
  return {
    machine: token.user.type === 'machine',
    ...(typeof authTime === 'number' && { authTime }),
    tokenId: hashId(token.payload.jti),
    userId: token.user.id,
    orgId: token.user.org_id,
    clientId: token.payload.clientId,
    projectId: token.client.projectId,
    scopes: token.scopes,
    expiresAt: new Date(token.payload.exp * 1000),
  };
}
