// The management API's Bearer authentication (RFC 6750) on every encoding: only active tokens that carry the management
// audience, of active users, pass; everything else is 401 before any permission or validation.
import { setTimeout as sleep } from 'node:timers/promises';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, ENCODINGS, type ApiCall } from '../helpers/management.ts';
import { createMachine, postForm } from '../helpers/oidc.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';

const INVALID = { ok: false, code: 16, message: 'Errors.Token.Invalid (AUTH-7fs1e)' };
const getMyUser: ApiCall = { service: AuthService, method: 'GetMyUser', rest: ['GET', '/auth/v1/users/me'] };
// invalid on purpose: a token problem must be reported before the request is looked at
const badSetUp: ApiCall = {
  service: AdminService,
  method: 'SetUpOrg',
  rest: ['POST', '/admin/v1/orgs/_setup'],
  body: { org: { name: '' } },
};

describe('management API authentication', () => {
  let server: TestServer;
  let machine: Awaited<ReturnType<typeof orgOwnerMachine>>;
  const TTL_SECONDS = 2;

  beforeAll(async () => {
    ({ server } = await startServerWithAdminKey({ GATEHOUSE_ACCESS_TOKEN_TTL: String(TTL_SECONDS) }));
    machine = await orgOwnerMachine(server);
  });
  afterAll(async () => server?.stop());

  const expectInvalidEverywhere = async (token: string) => {
    for (const encoding of ENCODINGS) {
      for (const call of [getMyUser, badSetUp]) {
        const outcome = await callApi(server.url, encoding, call, { token });
        expect(outcome, `${encoding} ${call.method}`).toMatchObject(INVALID);
        if (encoding === 'rest') expect(outcome.status).toBe(401);
      }
    }
  };

  it('accepts a fresh token with the management audience', async () => {
    const token = await jwtProfileToken(server, machine.keyFile);
    for (const encoding of ENCODINGS) expect((await callApi(server.url, encoding, getMyUser, { token })).ok).toBe(true);
    // and that caller, not being IAM_OWNER, gets 403 (not 400) for an invalid admin request
    for (const encoding of ENCODINGS)
      expect(await callApi(server.url, encoding, badSetUp, { token })).toMatchObject({ ok: false, code: 7 });
  });

  it('accepts JWT access tokens as well, and refuses a tampered one', async () => {
    const jwtMachine = await createMachine(server, 'jwt');
    const token = await jwtProfileToken(server, jwtMachine.keyFile);
    expect(token.split('.')).toHaveLength(3);
    for (const encoding of ENCODINGS) {
      expect(await callApi(server.url, encoding, getMyUser, { token })).toMatchObject({
        ok: true,
        json: { user: { id: jwtMachine.userId } },
      });
    }
    const [header, payload] = token.split('.');
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    forged.sub = machine.userId;
    await expectInvalidEverywhere(
      `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${token.split('.')[2]}`,
    );
  });

  it('refuses a token without the management audience (scope)', async () => {
    await expectInvalidEverywhere(await jwtProfileToken(server, machine.keyFile, 'openid profile'));
  });

  it('refuses a revoked token', async () => {
    const token = await jwtProfileToken(server, machine.keyFile);
    expect((await postForm(`${server.url}/oauth/v2/revoke`, { token, client_id: machine.userId })).status).toBe(200);
    await expectInvalidEverywhere(token);
  });

  it('refuses an expired token', async () => {
    const token = await jwtProfileToken(server, machine.keyFile);
    expect((await callApi(server.url, 'rest', getMyUser, { token })).ok).toBe(true);
    await sleep(TTL_SECONDS * 1000 + 1200);
    await expectInvalidEverywhere(token);
  });

  it('refuses the token of a user who was deactivated', async () => {
    const other = await orgOwnerMachine(server);
    const token = await jwtProfileToken(server, other.keyFile);
    await server.db.query("UPDATE users SET state = 'inactive' WHERE id = $1", [other.userId]);
    await expectInvalidEverywhere(token);
  });

  it('refuses malformed Authorization headers', async () => {
    for (const authorization of ['Basic YTpi', 'Bearer', 'Bearer a b']) {
      const res = await fetch(`${server.url}/auth/v1/users/me`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
      expect(((await res.json()) as { code: number }).code).toBe(16);
    }
  });
});
