// The passkey operations on REST, gRPC and gRPC-Web, as ZITADEL v1 has them: ListMyPasswordless and
// RemoveMyPasswordless for the caller, ListHumanPasswordless and RemoveHumanPasswordless for an org owner; another
// org's users are not found. (Registration happens on the account page: test/e2e/passkeys-browser.test.ts.)
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken, jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';
import { setUpOtherOrgApp, type OtherOrgApp } from '../helpers/other-org.ts';
import { CALLBACK, defaultOrgId } from '../helpers/oidc.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { insertCredential } from '../../src/passkeys/queries.ts';
import { newId } from '../../src/platform/ids.ts';

const listMine: ApiCall = {
  service: AuthService,
  method: 'ListMyPasswordless',
  rest: ['POST', '/auth/v1/users/me/passwordless/_search'],
};
const removeMine = (tokenId: string): ApiCall => ({
  service: AuthService,
  method: 'RemoveMyPasswordless',
  rest: ['DELETE', `/auth/v1/users/me/passwordless/${tokenId}`],
  body: { tokenId },
});
const listHuman = (userId: string): ApiCall => ({
  service: ManagementService,
  method: 'ListHumanPasswordless',
  rest: ['POST', `/management/v1/users/${userId}/passwordless/_search`],
  body: { userId },
});
const removeHuman = (userId: string, tokenId: string): ApiCall => ({
  service: ManagementService,
  method: 'RemoveHumanPasswordless',
  rest: ['DELETE', `/management/v1/users/${userId}/passwordless/${tokenId}`],
  body: { userId, tokenId },
});

describe('passkey management', () => {
  let server: TestServer;
  let orgOwnerToken: string;
  let other: OtherOrgApp;
  let userId: string;
  let userToken: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    orgOwnerToken = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
    other = await setUpOtherOrgApp(server, started.adminToken, CALLBACK);
    const input = registrationSchema.parse({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      userName: 'ada',
      password: 'Ada-Password-1',
    });
    userId = (await registerHuman(server.db, await defaultOrgId(server), input, 'en')).userId;
    userToken = await humanToken(server, 'ada', 'Ada-Password-1');
  });
  afterAll(async () => server?.stop());

  /** A stored credential, as the account page's registration leaves it. */
  async function addKey(name: string): Promise<string> {
    const id = newId();
    await insertCredential(server.db, {
      id,
      user_id: userId,
      credential_id: `cred-${id}`,
      public_key: 'pQECAyYgASFYIA',
      sign_count: 0,
      backup_eligible: false,
      backup_state: false,
      transports: ['internal'],
      name,
    });
    return id;
  }

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('the user lists and removes their own passkeys; a removed one is not found', async () => {
        const id = await addKey(`Laptop ${encoding}`);
        const mine = okJson<{ result: unknown[] }>(await callApi(server.url, encoding, listMine, { token: userToken }));
        expect(mine.result).toContainEqual({ id, name: `Laptop ${encoding}`, state: 'AUTH_FACTOR_STATE_READY' });
        // ListMyAuthFactors (the factors seam) shows each passkey as a U2F factor
        const factors = okJson<{ result: unknown[] }>(
          await callApi(
            server.url,
            encoding,
            {
              service: AuthService,
              method: 'ListMyAuthFactors',
              rest: ['POST', '/auth/v1/users/me/auth_factors/_search'],
            },
            { token: userToken },
          ),
        );
        expect(factors.result).toContainEqual({
          state: 'AUTH_FACTOR_STATE_READY',
          u2f: { id, name: `Laptop ${encoding}` },
        });
        const removed = okJson<{ details: { sequence: string; resourceOwner: string } }>(
          await callApi(server.url, encoding, removeMine(id), { token: userToken }),
        );
        expect(removed.details.resourceOwner).toBe(await defaultOrgId(server));
        const event = await server.db.query('SELECT event_type FROM events WHERE sequence = $1', [
          removed.details.sequence,
        ]);
        expect(event.rows).toEqual([{ event_type: 'user.human.passwordless.token.removed' }]);
        expect(await callApi(server.url, encoding, removeMine(id), { token: userToken })).toMatchObject({
          ok: false,
          code: 5,
        });
        if (encoding !== 'rest') {
          // a token ID is required (the proto's validation): 400 / INVALID_ARGUMENT, not 404 or 500
          expect(await callApi(server.url, encoding, removeMine(''), { token: userToken })).toMatchObject({
            ok: false,
            code: 3,
          });
        }
        const after = okJson<{ result?: { id: string }[] }>(
          await callApi(server.url, encoding, listMine, { token: userToken }),
        );
        expect((after.result ?? []).map((t) => t.id)).not.toContain(id);
      });

      it('an org owner lists and removes a user’s passkeys; another org’s owner finds neither', async () => {
        const id = await addKey(`Key ${encoding}`);
        const foreign = { token: other.owner.token };
        expect(await callApi(server.url, encoding, listHuman(userId), foreign)).toMatchObject({ ok: false, code: 5 });
        expect(await callApi(server.url, encoding, removeHuman(userId, id), foreign)).toMatchObject({
          ok: false,
          code: 5,
        });
        // a user may not use the admin operations
        expect(await callApi(server.url, encoding, listHuman(userId), { token: userToken })).toMatchObject({
          ok: false,
          code: 7,
        });
        const owner = { token: orgOwnerToken };
        const listed = okJson<{ result: unknown[] }>(await callApi(server.url, encoding, listHuman(userId), owner));
        expect(listed.result).toContainEqual({ id, name: `Key ${encoding}`, state: 'AUTH_FACTOR_STATE_READY' });
        expect((await callApi(server.url, encoding, removeHuman(userId, id), owner)).ok).toBe(true);
        expect(await callApi(server.url, encoding, removeHuman(userId, id), owner)).toMatchObject({
          ok: false,
          code: 5,
        });
        expect(await callApi(server.url, encoding, listHuman('404'), owner)).toMatchObject({ ok: false, code: 5 });
      });
    });
  }
});
