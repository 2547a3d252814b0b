// The real server with a public OIDC app whose callback is the test's relying party, plus shortcuts the login
// tests use to look at and add users.
import { startHarness } from './login-harness.ts';
import { freePort } from './server.ts';
import { registerHuman } from '../../src/users/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { findUserByLoginName } from '../../src/users/login-name.ts';
import type { UserRow } from '../../src/users/queries.ts';

export interface LoginServer {
  url: string;
  clientId: string;
  primaryDomain: string;
  adminId: string;
  adminPassword: string;
  findUser(loginName: string): Promise<UserRow | undefined>;
  addUser(userName: string, password: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startLoginServer(callbackUrl: string, env: Record<string, string> = {}): Promise<LoginServer> {
  const port = await freePort();
  const h = await startHarness(port, callbackUrl, env);
  const admin = (await findUserByLoginName(h.db, 'admin'))!;
  return {
    url: `http://127.0.0.1:${port}`,
    clientId: 'app',
    primaryDomain: admin.primary_domain,
    adminId: admin.id,
    adminPassword: 'Admin-Password-1',
    findUser: (loginName) => findUserByLoginName(h.db, loginName),
    async addUser(userName, password) {
      const input = registrationSchema.parse({ firstName: userName, lastName: 'Tester', email: `${userName}@example.com`, userName, password });
      return (await registerHuman(h.db, h.instance.default_org_id, input, 'en')).userId;
    },
    stop: h.close,
  };
}
