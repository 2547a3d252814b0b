// Issue 15's management operations on REST, gRPC and gRPC-Web: DeactivateIDP / ReactivateIDP (IAM_OWNER only,
// FAILED_PRECONDITION from the wrong state, Details of the event) and ListHumanLinkedIDPs (ORG_OWNER, the user's
// links with the IdP's name).
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { linkIdentity } from '../../src/idps/links.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';

const state = (idpId: string, to: 'deactivate' | 'reactivate'): ApiCall => ({
  service: AdminService,
  method: to === 'deactivate' ? 'DeactivateIDP' : 'ReactivateIDP',
  rest: ['POST', `/admin/v1/idps/${idpId}/_${to}`],
  body: { idpId },
});

describe('JWT IdP management', () => {
  let server: TestServer;
  let token: string;
  let instanceId: string;
  let orgOwnerToken: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    token = started.adminToken;
    instanceId = (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
    orgOwnerToken = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
  });
  afterAll(async () => server?.stop());

  const newIdp = async () =>
    (
      await addJwtIdp(
        server.db,
        instanceId,
        {
          name: 'Legacy SSO',
          stylingType: 'STYLING_TYPE_UNSPECIFIED',
          autoRegister: false,
          jwtEndpoint: 'https://legacy.example.com/jwt',
          issuer: 'https://legacy.example.com',
          keysEndpoint: 'https://legacy.example.com/keys',
          headerName: 'x-auth',
        },
        'test',
      )
    ).idpId;

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('deactivates and reactivates an IdP; the wrong state is FAILED_PRECONDITION; org owners may not', async () => {
        const idpId = await newIdp();
        const off = okJson<{ details: { sequence: string; resourceOwner: string } }>(
          await callApi(server.url, encoding, state(idpId, 'deactivate'), { token }),
        );
        expect(off.details.resourceOwner).toBe(instanceId);
        const stored = await server.db.query('SELECT state, sequence::text FROM idps WHERE id = $1', [idpId]);
        expect(stored.rows[0]).toEqual({ state: 'inactive', sequence: off.details.sequence });
        expect(await callApi(server.url, encoding, state(idpId, 'deactivate'), { token })).toMatchObject({
          ok: false,
          code: 9,
        });
        expect(await callApi(server.url, encoding, state(idpId, 'deactivate'), { token: orgOwnerToken })).toMatchObject(
          { ok: false, code: 7 },
        );
        expect((await callApi(server.url, encoding, state(idpId, 'reactivate'), { token })).ok).toBe(true);
        expect(await callApi(server.url, encoding, state('404', 'reactivate'), { token })).toMatchObject({
          ok: false,
          code: 5,
        });
      });

      it('lists a user’s linked identities', async () => {
        const idpId = await newIdp();
        const admin = (await findUserByLoginName(server.db, 'admin'))!;
        const sub = `ext-${encoding}`;
        await server.db.tx((tx) =>
          linkIdentity(tx, admin.id, admin.org_id, { idpId, externalUserId: sub, displayName: 'Ada Admin' }),
        );
        const list: ApiCall = {
          service: ManagementService,
          method: 'ListHumanLinkedIDPs',
          rest: ['POST', `/management/v1/users/${admin.id}/idps/_search`],
          body: { userId: admin.id },
        };
        const json = okJson<{ details: { totalResult: string }; result: Record<string, unknown>[] }>(
          await callApi(server.url, encoding, list, { token: orgOwnerToken }),
        );
        expect(json.result).toContainEqual({
          userId: admin.id,
          idpId,
          idpName: 'Legacy SSO',
          providedUserId: sub,
          providedUserName: 'Ada Admin',
          idpType: 'IDP_TYPE_JWT',
        });
      });
    });
  }
});
