// The real server (startTestServer) with a public OIDC app (none + PKCE) whose callback is the test's relying
// party on loopback, plus the shortcuts the login tests use to look at and add users.
import type { Config } from '../../src/config.ts';
import { createOidcApp, defaultOrgId } from './oidc.ts';
import { ADMIN_PASSWORD, startTestServer } from './server.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';
import type { UserRow } from '../../src/users/queries.ts';
import type { Db } from '../../src/platform/db.ts';
import type { TestDatabase } from './database.ts';

export interface LoginServer {
  url: string;
  clientId: string;
  primaryDomain: string;
  adminId: string;
  adminPassword: string;
  /** Every log line the server wrote. */
  logs: string[];
  db: Db;
  config: Config;
  findUser(loginName: string): Promise<UserRow | undefined>;
  addUser(userName: string, password: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startLoginServer(
  callbackUrl: string,
  env: Record<string, string> = {},
  issuerHost?: string,
  /** A database of the test's own (e.g. reached through a proxy it can cut); a fresh one by default. */
  database?: TestDatabase,
): Promise<LoginServer> {
  const server = await startTestServer({ env, issuerHost, database });
  try {
    // dev mode: the relying party's callback is plain http on loopback
    const app = await createOidcApp(server, {
      appType: 'user_agent',
      authMethod: 'none',
      devMode: true,
      redirectUris: [`${callbackUrl}/cb`],
      postLogoutRedirectUris: [`${callbackUrl}/bye`],
    });
    const admin = (await findUserByLoginName(server.db, 'admin'))!;
    const orgId = await defaultOrgId(server);
    return {
      url: server.url,
      clientId: app.clientId,
      primaryDomain: admin.primary_domain,
      adminId: admin.id,
      adminPassword: ADMIN_PASSWORD,
      logs: server.logs,
      db: server.db,
      config: server.config,
      findUser: (loginName) => findUserByLoginName(server.db, loginName),
      async addUser(userName, password) {
        const input = registrationSchema.parse({
          firstName: userName,
          lastName: 'Tester',
          email: `${userName}@example.com`,
          userName,
          password,
        });
        return (await registerHuman(server.db, orgId, input, 'en')).userId;
      },
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
