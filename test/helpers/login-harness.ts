// TEMPORARY until the oidc branch's provider is merged: a real oidc-provider (memory adapter) + the login routes, for debugging.
import Provider, { interactionPolicy } from 'oidc-provider';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openDb } from '../../src/platform/db.ts';
import { migrate, listMigrations } from '../../src/platform/migrate.ts';
import { bootstrap } from '../../src/instance/bootstrap.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { buildApp } from '../../src/app.ts';
import { registerLogin } from '../../src/login/routes.ts';
import { providerPages } from '../../src/login/provider-pages.ts';
import { findUserById } from '../../src/users/queries.ts';
import { rmSync } from 'node:fs';

export async function startHarness(port: number, callback: string, env: Record<string, string> = {}) {
  const dir = `/tmp/harness-data-${port}`; rmSync(dir, { recursive: true, force: true });
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', GATEHOUSE_ISSUER: `http://127.0.0.1:${port}`, GATEHOUSE_DATA_DIR: dir, GATEHOUSE_MASTER_KEY: 'k'.repeat(40), GATEHOUSE_ADMIN_PASSWORD: 'Admin-Password-1', LOG_LEVEL: 'warn', ...env });
  const log = createLogger('warn');
  const db = await openDb(config.database);
  await migrate(db, listMigrations());
  const instance = await bootstrap(db, config, log);
  const deps = { config, db, log, secrets: createSecretBox('k'.repeat(40)), instance, schemaVersion: 20 };
  const app = await buildApp(deps);
  const pp = providerPages(deps);
  const policy = interactionPolicy.base();
  policy.add(new interactionPolicy.Prompt({ name: 'create', requestable: true }), 0);
  policy.add(new interactionPolicy.Prompt({ name: 'select_account', requestable: true }), 1);
  const provider = new Provider(config.issuer, {
    clients: [{ client_id: 'app', client_uri: callback, token_endpoint_auth_method: 'none', redirect_uris: [`${callback}/cb`], post_logout_redirect_uris: [`${callback}/bye`], response_types: ['code'], grant_types: ['authorization_code'] }],
    routes: { authorization: '/oauth/v2/authorize', token: '/oauth/v2/token', end_session: '/oidc/v1/end_session', jwks: '/oauth/v2/keys', userinfo: '/oidc/v1/userinfo' },
    interactions: { url: (_c, i) => `/ui/login/${i.uid}`, policy },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true, logoutSource: pp.logoutSource as never, postLogoutSuccessSource: pp.postLogoutSuccessSource as never } },
    renderError: pp.renderError as never,
    cookies: { keys: ['x'], names: { session: '_gh_session', interaction: '_gh_interaction', resume: '_gh_resume' } },
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session!.accountId!, clientId: ctx.oidc.client!.clientId });
      grant.addOIDCScope(String(ctx.oidc.params!.scope)); await grant.save(); return grant;
    },
    async findAccount(_ctx, sub) { const u = await findUserById(db, sub); return u ? { accountId: sub, claims: () => ({ sub }) } : undefined; },
  });
  const hand = (req: any, reply: any) => { reply.hijack(); provider.callback()(req.raw, reply.raw); };
  for (const [m, u] of [['GET', '/.well-known/openid-configuration'], ['GET', '/oauth/v2/authorize'], ['GET', '/oauth/v2/authorize/:uid'], ['GET', '/oidc/v1/end_session'], ['POST', '/oidc/v1/end_session/confirm'], ['GET', '/oidc/v1/end_session/success'], ['GET', '/oauth/v2/keys']] as const) {
    app.route({ method: m, url: u, onRequest: async (req, reply) => hand(req, reply), handler: async () => {} });
  }
  app.route({ method: 'POST', url: '/oauth/v2/token', onRequest: async (req, reply) => hand(req, reply), handler: async () => {} });
  await registerLogin(app, deps, { provider: () => provider });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, db, instance, close: async () => { await app.close(); await db.close(); } };
}
