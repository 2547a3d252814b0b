// U+0000 in any text field of a management call (PostgreSQL cannot store it): 400 / INVALID_ARGUMENT naming the field,
// on REST, gRPC and gRPC-Web alike, in plain, nested and repeated fields and path parameters; nothing written, nothing
// logged at error level.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { ADMIN_PASSWORD } from '../helpers/server.ts';
import { callApi, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken, startServerWithAdminKey } from '../helpers/tokens.ts';
import { calls, expectError } from '../helpers/provisioning.ts';

const NUL = 'a\u0000b';

describe('NUL characters in management calls', () => {
  let server: TestServer;
  let adminToken: string;
  let userToken: string;
  let projectId: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    adminToken = started.adminToken;
    userToken = await humanToken(server, 'admin', ADMIN_PASSWORD);
    projectId = okJson<{ id: string }>(await callApi(server.url, 'rest', calls.addProject(), { token: adminToken })).id;
  });
  afterAll(async () => server?.stop());

  const cases: { name: string; call: () => ApiCall; token: () => string; message: string }[] = [
    {
      name: 'UpdateMyProfile firstName',
      call: () => ({
        service: AuthService,
        method: 'UpdateMyProfile',
        rest: ['PUT', '/auth/v1/users/me/profile'],
        body: { firstName: NUL, lastName: 'L', displayName: 'D' },
      }),
      token: () => userToken,
      message: 'invalid UpdateMyProfileRequest.FirstName: value must not contain NUL characters',
    },
    {
      name: 'SetUpOrg org.name (nested)',
      call: () => ({
        service: AdminService,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'],
        body: {
          org: { name: NUL },
          human: { userName: 'nul', profile: { firstName: 'F', lastName: 'L' }, email: { email: 'nul@example.com' } },
        },
      }),
      token: () => adminToken,
      message:
        'invalid SetUpOrgRequest.Org: embedded message failed validation | caused by: invalid ' +
        'SetUpOrgRequest_Org.Name: value must not contain NUL characters',
    },
    {
      name: 'AddOIDCApp redirectUris[1] (repeated)',
      call: () =>
        calls.addOidcApp(projectId, { redirectUris: ['https://rp.example.com/cb', `https://rp.example.com/${NUL}`] }),
      token: () => adminToken,
      message: 'invalid AddOIDCAppRequest.RedirectUris[1]: value must not contain NUL characters',
    },
    {
      name: 'GetUserByID id (a REST path parameter)',
      call: () => ({ ...calls.getUser(NUL), rest: ['GET', '/management/v1/users/a%00b'] }),
      token: () => adminToken,
      message: 'invalid GetUserByIDRequest.Id: value must not contain NUL characters',
    },
  ];

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      for (const c of cases) {
        it(c.name, async () => {
          const logsBefore = server.logs.length;
          const events = async () => Number((await server.db.query('SELECT count(*) AS n FROM events')).rows[0]!.n);
          const before = await events();
          expectError(await callApi(server.url, encoding, c.call(), { token: c.token() }), encoding, 3, c.message);
          expect(await events()).toBe(before);
          expect(
            server.logs.slice(logsBefore).filter((line) => (JSON.parse(line) as { level: number }).level >= 50),
          ).toEqual([]);
        });
      }
    });
  }
});
