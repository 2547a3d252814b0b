// What every encoding shares before any token is involved: routing from the descriptors, UNIMPLEMENTED for methods
// without an operation, and 401 first (authentication before permission before validation).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, callRest, ENCODINGS, type ApiCall } from '../helpers/management.ts';
import { calls } from '../helpers/provisioning.ts';

const OPERATIONS: ApiCall[] = [
  {
    service: AuthService,
    method: 'UpdateMyProfile',
    rest: ['PUT', '/auth/v1/users/me/profile'],
    body: { firstName: 'a' },
  },
  { service: AuthService, method: 'GetMyUser', rest: ['GET', '/auth/v1/users/me'] },
  { service: AdminService, method: 'AddJWTIDP', rest: ['POST', '/admin/v1/idps/jwt'], body: { name: 'x' } },
  { service: AdminService, method: 'GetIDPByID', rest: ['GET', '/admin/v1/idps/123'], body: { id: '123' } },
  { service: AdminService, method: 'SetUpOrg', rest: ['POST', '/admin/v1/orgs/_setup'], body: { org: { name: 'x' } } },
  { service: AdminService, method: 'GetOrgByID', rest: ['GET', '/admin/v1/orgs/123'], body: { id: '123' } },
  calls.addIamMember('123'),
  calls.getMyOrg(),
  calls.addProject(),
  calls.addOidcApp('1'),
  calls.addApiApp('1'),
  calls.getApp('1', '2'),
  calls.updateOidcConfig('1', '2'),
  calls.addAppKey('1', '2'),
  calls.addMachineUser(),
  calls.addMachineKey('1'),
  calls.generateMachineSecret('1'),
  calls.importHumanUser(),
  calls.getUser('1'),
  calls.deactivateUser('1'),
];

describe('management transport', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  for (const encoding of ENCODINGS) {
    it(`${encoding}: every implemented method answers 401 without a token and with an unknown one`, async () => {
      for (const call of OPERATIONS) {
        const missing = await callApi(server.url, encoding, call);
        expect(missing, `${call.method}`).toMatchObject({
          ok: false,
          code: 16,
          message: 'auth header missing (AUTH-7mr9s)',
        });
        const unknown = await callApi(server.url, encoding, call, { token: 'not-a-token' });
        expect(unknown, `${call.method}`).toMatchObject({
          ok: false,
          code: 16,
          message: 'Errors.Token.Invalid (AUTH-7fs1e)',
        });
      }
    });

    it(`${encoding}: a method without an implementation answers UNIMPLEMENTED`, async () => {
      const outcome = await callApi(server.url, encoding, {
        service: ManagementService,
        method: 'ListActions',
        rest: ['POST', '/management/v1/actions/_search'],
      });
      expect(outcome).toMatchObject({ ok: false, code: 12 });
      if (encoding === 'rest') expect(outcome.status).toBe(501);
    });
  }

  it('REST: the 401 body follows the error model, with WWW-Authenticate', async () => {
    const outcome = await callRest(server.url, OPERATIONS[4]!, { token: 'not-a-token' });
    expect(outcome).toEqual({
      ok: false,
      status: 401,
      code: 16,
      message: 'Errors.Token.Invalid (AUTH-7fs1e)',
      body: {
        code: 16,
        message: 'Errors.Token.Invalid (AUTH-7fs1e)',
        details: [
          { '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: 'AUTH-7fs1e', message: 'Errors.Token.Invalid' },
        ],
      },
      wwwAuthenticate: 'Bearer realm="gatehouse", error="invalid_token"',
    });
    const missing = await callRest(server.url, OPERATIONS[4]!);
    expect(missing).toMatchObject({ status: 401, wwwAuthenticate: 'Bearer realm="gatehouse"' });
  });

  it('REST: authentication comes before a malformed body (401 before 400)', async () => {
    expect(await callRest(server.url, OPERATIONS[4]!, {}, '{not json')).toMatchObject({ status: 401, code: 16 });
    expect(await callRest(server.url, OPERATIONS[4]!, { token: 'x' }, '[1,2')).toMatchObject({ status: 401, code: 16 });
  });

  it('REST: unknown paths are 404 and a wrong method on a known path is 405', async () => {
    const unknown = await fetch(`${server.url}/admin/v1/no/such/thing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ code: 5, message: 'Not Found' });
    const wrongMethod = await fetch(`${server.url}/admin/v1/orgs/_setup`, {
      method: 'PATCH',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({ code: 12, message: 'Method Not Allowed' });
  });

  it('the Connect JSON protocol is not served: JSON belongs to the REST paths', async () => {
    const res = await fetch(`${server.url}/zitadel.admin.v1.AdminService/SetUpOrg`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(415);
  });
});
