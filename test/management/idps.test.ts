// The JWT IdPs' management operations on REST, gRPC and gRPC-Web: the instance's IdPs (ListIDPs, UpdateIDP,
// UpdateIDPJWTConfig, DeactivateIDP / ReactivateIDP, RemoveIDP), the login policy's IdPs (AddIDPToLoginPolicy,
// ListLoginPolicyIDPs, RemoveIDPFromLoginPolicy) and users' links (ListHumanLinkedIDPs, RemoveHumanLinkedIDP):
// IAM_OWNER only for the instance (an org owner gets 403), the user's org for links (another org's user is 404),
// ZITADEL's errors, 400 naming the field, Details of the event.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { beforeAll, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import type { ApiCall } from '../helpers/management.ts';
import {
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  describeEachEncoding,
  unique,
  type ApiAnswer,
} from '../helpers/provisioning.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { findLinkedUserId, linkIdentity } from '../../src/idps/links.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';

const A = AdminService;
const JWT_CONFIG = {
  jwtEndpoint: 'https://legacy.example.com/jwt',
  issuer: 'https://legacy.example.com',
  keysEndpoint: 'https://legacy.example.com/keys',
  headerName: 'x-auth',
};

const calls = {
  state: (idpId: string, to: 'deactivate' | 'reactivate'): ApiCall => ({
    service: A,
    method: to === 'deactivate' ? 'DeactivateIDP' : 'ReactivateIDP',
    rest: ['POST', `/admin/v1/idps/${idpId}/_${to}`],
    body: { idpId },
  }),
  list: (body: Record<string, unknown> = {}): ApiCall => ({
    service: A,
    method: 'ListIDPs',
    rest: ['POST', '/admin/v1/idps/_search'],
    body,
  }),
  get: (id: string): ApiCall => ({
    service: A,
    method: 'GetIDPByID',
    rest: ['GET', `/admin/v1/idps/${id}`],
    body: { id },
  }),
  update: (idpId: string, body: Record<string, unknown>): ApiCall => ({
    service: A,
    method: 'UpdateIDP',
    rest: ['PUT', `/admin/v1/idps/${idpId}`],
    body: { idpId, ...body },
  }),
  updateJwt: (idpId: string, body: Record<string, unknown>): ApiCall => ({
    service: A,
    method: 'UpdateIDPJWTConfig',
    rest: ['PUT', `/admin/v1/idps/${idpId}/jwt_config`],
    body: { idpId, ...JWT_CONFIG, ...body },
  }),
  remove: (idpId: string): ApiCall => ({
    service: A,
    method: 'RemoveIDP',
    rest: ['DELETE', `/admin/v1/idps/${idpId}`],
    body: { idpId },
  }),
  addToPolicy: (idpId: string): ApiCall => ({
    service: A,
    method: 'AddIDPToLoginPolicy',
    rest: ['POST', '/admin/v1/policies/login/idps'],
    body: { idpId },
  }),
  listPolicy: (body: Record<string, unknown> = {}): ApiCall => ({
    service: A,
    method: 'ListLoginPolicyIDPs',
    rest: ['POST', '/admin/v1/policies/login/idps/_search'],
    body,
  }),
  removeFromPolicy: (idpId: string): ApiCall => ({
    service: A,
    method: 'RemoveIDPFromLoginPolicy',
    rest: ['DELETE', `/admin/v1/policies/login/idps/${idpId}`],
    body: { idpId },
  }),
  links: (userId: string): ApiCall => ({
    service: ManagementService,
    method: 'ListHumanLinkedIDPs',
    rest: ['POST', `/management/v1/users/${userId}/idps/_search`],
    body: { userId },
  }),
  removeLink: (userId: string, idpId: string, linkedUserId: string): ApiCall => ({
    service: ManagementService,
    method: 'RemoveHumanLinkedIDP',
    rest: ['DELETE', `/management/v1/users/${userId}/idps/${idpId}/${encodeURIComponent(linkedUserId)}`],
    body: { userId, idpId, linkedUserId },
  }),
};

describeEachEncoding('JWT IdP management', ({ encoding, p, call: callWith, okCall: okWith }) => {
  let server: TestServer;
  let token: string;
  let orgOwnerToken: string;
  let otherOrgId: string;
  let instanceId: string;

  beforeAll(async () => {
    ({ server, adminToken: token, orgOwnerToken, otherOrgId } = p);
    instanceId = (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
  });
  // IAM_OWNER unless another token is given
  const call = (c: ApiCall, as = token) => callWith(c, as);
  const okCall = (c: ApiCall) => okWith(c, token);

  const newIdp = async (name = 'Legacy SSO') =>
    (
      await addJwtIdp(
        server.db,
        instanceId,
        { name, stylingType: 'STYLING_TYPE_UNSPECIFIED', autoRegister: false, ...JWT_CONFIG },
        'test',
      )
    ).idpId;

  const admin = async () => (await findUserByLoginName(server.db, 'admin'))!;
  const link = async (userId: string, orgId: string, idpId: string, sub: string) =>
    server.db.tx((tx) => linkIdentity(tx, userId, orgId, { idpId, externalUserId: sub, displayName: `Name ${sub}` }));
  const eventTypes = async (after: string) =>
    (
      await server.db.query<{ event_type: string }>(
        'SELECT event_type FROM events WHERE sequence > $1 ORDER BY sequence',
        [after],
      )
    ).rows.map((r) => r.event_type);
  const lastSequence = async () =>
    (await server.db.query<{ s: string }>('SELECT max(sequence)::text AS s FROM events')).rows[0]!.s;

  it('deactivates and reactivates an IdP; the wrong state is FAILED_PRECONDITION; org owners may not', async () => {
    const idpId = await newIdp();
    const off = await okCall(calls.state(idpId, 'deactivate'));
    expectChangedDetails(off.details, instanceId);
    const stored = await server.db.query('SELECT state, sequence::text FROM idps WHERE id = $1', [idpId]);
    expect(stored.rows[0]).toEqual({ state: 'inactive', sequence: off.details.sequence });
    expectError(await call(calls.state(idpId, 'deactivate')), encoding, 9);
    expectError(await call(calls.state(idpId, 'deactivate'), orgOwnerToken), encoding, 7);
    await okCall(calls.state(idpId, 'reactivate'));
    expectError(await call(calls.state('404', 'reactivate')), encoding, 5);
  });

  it('ListIDPs: the instance’s IdPs with ZITADEL’s queries, paging and total; IAM_OWNER only', async () => {
    const prefix = unique(`Find ${encoding}`);
    const first = await newIdp(`${prefix} b`);
    const second = await newIdp(`${prefix} A`);
    const byName = { idpNameQuery: { name: prefix, method: 'TEXT_QUERY_METHOD_STARTS_WITH' } };
    const listed = await okCall(calls.list({ queries: [byName] }));
    expect((listed.details as Record<string, string>).totalResult).toBe('2');
    expect((listed.result as ApiAnswer[]).map((i) => i.id)).toEqual([first, second]);
    const sorted = await okCall(
      calls.list({ queries: [byName], sortingColumn: 'IDP_FIELD_NAME_NAME', query: { asc: true, limit: 1 } }),
    );
    expect((sorted.details as Record<string, string>).totalResult).toBe('2');
    const [idp] = sorted.result as ApiAnswer[];
    expect(idp).toMatchObject({
      id: second,
      state: 'IDP_STATE_ACTIVE',
      name: `${prefix} A`,
      owner: 'IDP_OWNER_TYPE_SYSTEM',
      jwtConfig: JWT_CONFIG,
      details: { resourceOwner: instanceId },
    });
    const byId = await okCall(calls.list({ queries: [{ idpIdQuery: { id: first } }] }));
    expect((byId.result as ApiAnswer[]).map((i) => i.name)).toEqual([`${prefix} b`]);
    expectError(await call(calls.list({ queries: [{}] })), encoding, 3, /ListIDPsRequest\.Queries\[0\]/);
    expectError(await call(calls.list({ query: { limit: 1001 } })), encoding, 3, /ListIDPsRequest\.Query\.Limit/);
    expectError(await call(calls.list(), orgOwnerToken), encoding, 7);
  });

  it('UpdateIDP: name, styling and autoRegister; nothing changed is FAILED_PRECONDITION', async () => {
    const idpId = await newIdp();
    const before = await lastSequence();
    const change = { name: 'Renamed', stylingType: 'STYLING_TYPE_GOOGLE', autoRegister: true };
    const updated = await okCall(calls.update(idpId, change));
    expectChangedDetails(updated.details, instanceId);
    expect(await eventTypes(before)).toEqual(['instance.idp.config.changed']);
    const read = (await okCall(calls.get(idpId))).idp as ApiAnswer;
    expect(read).toMatchObject({ ...change, jwtConfig: JWT_CONFIG });
    expect((read.details as Record<string, string>).sequence).toBe(updated.details.sequence);
    expectError(await call(calls.update(idpId, change)), encoding, 9, /IDP not changed/);
    expectError(await call(calls.update(idpId, { ...change, name: '' })), encoding, 3, /UpdateIDPRequest\.Name/);
    expectError(
      await call(calls.update(idpId, { ...change, name: 'x'.repeat(201) })),
      encoding,
      3,
      /UpdateIDPRequest\.Name/,
    );
    expectError(await call(calls.update('404', change)), encoding, 5);
    expectError(await call(calls.update(idpId, { name: 'Org owner' }), orgOwnerToken), encoding, 7);
    expect((await server.db.query('SELECT name FROM idps WHERE id = $1', [idpId])).rows[0]).toEqual({
      name: 'Renamed',
    });
  });

  it('UpdateIDPJWTConfig: the four fields, checked like AddJWTIDP; nothing changed is FAILED_PRECONDITION', async () => {
    const idpId = await newIdp();
    const config = {
      jwtEndpoint: 'https://new.example.com/jwt?tenant=a',
      issuer: 'https://new.example.com',
      keysEndpoint: 'https://new.example.com/keys',
      headerName: 'x-new',
    };
    const updated = await okCall(calls.updateJwt(idpId, config));
    expectChangedDetails(updated.details, instanceId);
    expect(((await okCall(calls.get(idpId))).idp as ApiAnswer).jwtConfig).toEqual(config);
    expectError(await call(calls.updateJwt(idpId, config)), encoding, 9, /not changed/);
    const bad = [
      [{ keysEndpoint: 'file:///etc/passwd' }, /UpdateIDPJWTConfigRequest\.KeysEndpoint/],
      [{ jwtEndpoint: 'http://legacy.example.com/jwt' }, /UpdateIDPJWTConfigRequest\.JwtEndpoint/],
      [{ headerName: '' }, /UpdateIDPJWTConfigRequest\.HeaderName/],
      [{ issuer: 'i'.repeat(201) }, /UpdateIDPJWTConfigRequest\.Issuer/],
    ] as const;
    for (const [body, field] of bad) expectError(await call(calls.updateJwt(idpId, body)), encoding, 3, field);
    expectError(await call(calls.updateJwt('404', config)), encoding, 5);
    expectError(await call(calls.updateJwt(idpId, JWT_CONFIG), orgOwnerToken), encoding, 7);
    const stored = await server.db.query('SELECT keys_endpoint FROM idps WHERE id = $1', [idpId]);
    expect(stored.rows[0]).toEqual({ keys_endpoint: config.keysEndpoint });
  });

  it('the login policy’s IdPs: added (not by AddJWTIDP), listed, removed, with ZITADEL’s errors', async () => {
    const idpId = await newIdp(unique('Policy'));
    const listedIds = async () =>
      ((await okCall(calls.listPolicy({ query: { limit: 1000 } }))).result as ApiAnswer[] | undefined)?.map(
        (r) => r.idpId,
      ) ?? [];
    expect(await listedIds()).not.toContain(idpId);
    const added = await okCall(calls.addToPolicy(idpId));
    expectCreatedDetails(added.details, instanceId);
    const listed = await okCall(calls.listPolicy());
    expect(listed.result as ApiAnswer[]).toContainEqual({
      idpId,
      idpName: (await server.db.query('SELECT name FROM idps WHERE id = $1', [idpId])).rows[0]!.name,
      idpType: 'IDP_TYPE_JWT',
    });
    expect(Number((listed.details as Record<string, string>).totalResult)).toBeGreaterThanOrEqual(1);
    expectError(await call(calls.addToPolicy(idpId)), encoding, 6);
    expectError(await call(calls.addToPolicy('404')), encoding, 9);
    expectError(await call(calls.addToPolicy('')), encoding, 3, /AddIDPToLoginPolicyRequest\.IdpId/);
    expectError(await call(calls.addToPolicy(idpId), orgOwnerToken), encoding, 7);
    expectError(await call(calls.listPolicy(), orgOwnerToken), encoding, 7);
    expectError(await call(calls.removeFromPolicy(idpId), orgOwnerToken), encoding, 7);
    expectChangedDetails((await okCall(calls.removeFromPolicy(idpId))).details, instanceId);
    expect(await listedIds()).not.toContain(idpId);
    expectError(await call(calls.removeFromPolicy(idpId)), encoding, 5);
  });

  it('RemoveIDP takes the IdP off the login policy and removes its links, with their events', async () => {
    const idpId = await newIdp();
    await okCall(calls.addToPolicy(idpId));
    const user = await admin();
    await link(user.id, user.org_id, idpId, `gone-${encoding}`);
    expectError(await call(calls.remove(idpId), orgOwnerToken), encoding, 7);
    const before = await lastSequence();
    const removed = await okCall(calls.remove(idpId));
    expectChangedDetails(removed.details, instanceId);
    expect(await eventTypes(before)).toEqual([
      'instance.idp.config.removed',
      'instance.policy.login.idpprovider.cascade.removed',
      'user.human.externalidp.cascade.removed',
    ]);
    expect(await findLinkedUserId(server.db, idpId, `gone-${encoding}`)).toBeNull();
    expectError(await call(calls.get(idpId)), encoding, 5);
    const onPolicy = await server.db.query('SELECT 1 FROM login_policy_idps WHERE idp_id = $1', [idpId]);
    expect(onPolicy.rowCount).toBe(0);
    expectError(await call(calls.remove(idpId)), encoding, 5);
    expectError(await call(calls.remove('')), encoding, 3, /RemoveIDPRequest\.IdpId/);
  });

  it('lists and removes a user’s linked identities; another org’s user is 404', async () => {
    const idpId = await newIdp();
    const user = await admin();
    const sub = `ext/${encoding}`;
    await link(user.id, user.org_id, idpId, sub);
    const list = await okWith(calls.links(user.id), orgOwnerToken);
    expect(list.result as ApiAnswer[]).toContainEqual({
      userId: user.id,
      idpId,
      idpName: 'Legacy SSO',
      providedUserId: sub,
      providedUserName: `Name ${sub}`,
      idpType: 'IDP_TYPE_JWT',
    });
    // the other org's user, through the first org's owner, and the first org's user in the other org's context
    const other = (await server.db.query<{ id: string }>('SELECT id FROM users WHERE org_id = $1', [otherOrgId]))
      .rows[0]!.id;
    await link(other, otherOrgId, idpId, `other-${encoding}`);
    expectError(await call(calls.removeLink(other, idpId, `other-${encoding}`), orgOwnerToken), encoding, 5);
    expectError(await callWith(calls.removeLink(user.id, idpId, sub), token, otherOrgId), encoding, 5);
    expectError(await call(calls.removeLink(user.id, idpId, 'unknown'), orgOwnerToken), encoding, 5);
    expectError(
      await call(calls.removeLink(user.id, idpId, 'x'.repeat(201)), orgOwnerToken),
      encoding,
      3,
      /RemoveHumanLinkedIDPRequest\.LinkedUserId/,
    );
    const before = await lastSequence();
    const removed = await okWith(calls.removeLink(user.id, idpId, sub), orgOwnerToken);
    expectChangedDetails(removed.details, user.org_id);
    expect(await eventTypes(before)).toEqual(['user.human.externalidp.removed']);
    expect(await findLinkedUserId(server.db, idpId, sub)).toBeNull();
    expect(await findLinkedUserId(server.db, idpId, `other-${encoding}`)).toBe(other);
    expectError(await call(calls.removeLink(user.id, idpId, sub), orgOwnerToken), encoding, 5);
  });
});
