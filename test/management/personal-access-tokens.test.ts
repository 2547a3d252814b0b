// AddPersonalAccessToken, ListPersonalAccessTokens, GetPersonalAccessTokenByIDs and RemovePersonalAccessToken on REST,
// gRPC and gRPC-Web: ZITADEL's shapes and errors, the token shown once and never stored, and the token used as the
// bearer of the management API with its machine user's roles.
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { expect, it } from 'vitest';
import {
  calls,
  describeEachEncoding,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  unique,
} from '../helpers/provisioning.ts';
import { lifecycle } from '../helpers/lifecycle.ts';
import type { ApiCall } from '../helpers/management.ts';

const getMyUser: ApiCall = { service: AuthService, method: 'GetMyUser', rest: ['GET', '/auth/v1/users/me'] };
interface AddedPat {
  tokenId: string;
  token: string;
  details: Record<string, string>;
}
const PAT_SCOPES = [
  'openid',
  'urn:zitadel:iam:user:metadata',
  'urn:zitadel:iam:user:resourceowner',
  'urn:zitadel:iam:org:project:id:zitadel:aud',
];

describeEachEncoding('personal access tokens', ({ encoding, p, call, okCall }) => {
  const machine = async () => (await okCall(calls.addMachineUser())).userId;

  it('AddPersonalAccessToken shows the token once; list and get show id, dates and scopes, never the token', async () => {
    const userId = await machine();
    const added = await okCall<AddedPat>(calls.addPat(userId));
    expect(Object.keys(added).sort()).toEqual(['details', 'token', 'tokenId']);
    expectCreatedDetails(added.details, p.firstOrgId);
    expect(added.token).toMatch(/^gatehouse_pat_[\w-]{43}$/);

    const got = await okCall<{ token: Record<string, unknown> }>(calls.getPat(userId, added.tokenId));
    // no expiration date asked for: ZITADEL's "no expiry", 9999-12-31
    expect(got.token).toMatchObject({ id: added.tokenId, expirationDate: '9999-12-31T23:59:59Z', scopes: PAT_SCOPES });
    expect(Object.keys(got.token).sort()).toEqual(['details', 'expirationDate', 'id', 'scopes']);

    const expirationDate = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const second = await okCall<AddedPat>(calls.addPat(userId, { expirationDate }));
    const list = await okCall<{ details: Record<string, string>; result: Record<string, unknown>[] }>(
      calls.listPats(userId),
    );
    expect(list.details.totalResult).toBe('2');
    expect(list.result.map((t) => [t.id, t.expirationDate])).toEqual([
      [added.tokenId, '9999-12-31T23:59:59Z'],
      [second.tokenId, expirationDate],
    ]);
    const everything = JSON.stringify([got, list]);
    for (const token of [added.token, second.token]) expect(everything).not.toContain(token);
    // the database holds a hash only
    const { rows } = await p.server.db.query('SELECT * FROM personal_access_tokens WHERE user_id = $1', [userId]);
    expect(JSON.stringify(rows)).not.toContain(added.token.slice('gatehouse_pat_'.length));

    expectChangedDetails((await okCall(calls.removePat(userId, added.tokenId))).details, p.firstOrgId);
    expectError(
      await call(calls.getPat(userId, added.tokenId)),
      encoding,
      5,
      'Personal Access Token not found (QUERY-fRunu)',
    );
    expectError(
      await call(calls.removePat(userId, added.tokenId)),
      encoding,
      5,
      'Personal Access Token not found (COMMAND-4m77G)',
    );
    const events = await p.server.db.query<{ event_type: string }>(
      'SELECT event_type FROM events WHERE aggregate_id = $1 ORDER BY sequence',
      [userId],
    );
    expect(events.rows.map((e) => e.event_type).slice(-3)).toEqual([
      'user.personal.access.token.added',
      'user.personal.access.token.added',
      'user.personal.access.token.removed',
    ]);
  });

  it("refuses humans, unknown users, other orgs' users and past dates as ZITADEL does", async () => {
    const human = (await okCall(calls.importHumanUser())).userId;
    expectError(await call(calls.addPat(human)), encoding, 9, 'User type is not allowed (COMMAND-Df2f1)');
    expectError(await call(calls.addPat('404404')), encoding, 9, 'User could not be found (COMMAND-Dggw2)');
    const stranger = (await okCall(calls.addMachineUser(), p.adminToken, p.otherOrgId)).userId;
    expectError(
      await call(calls.addPat(stranger), p.adminToken),
      encoding,
      9,
      'User could not be found (COMMAND-Dggw2)',
    );
    const theirs = await okCall<AddedPat>(calls.addPat(stranger), p.adminToken, p.otherOrgId);
    // another org's token: listed as none, not found by id, not removable from this org
    const none = await okCall(calls.listPats(stranger), p.adminToken);
    expect([none.details.totalResult, none.result]).toEqual([undefined, undefined]); // proto3 JSON leaves out zero
    expectError(await call(calls.getPat(stranger, theirs.tokenId), p.adminToken), encoding, 5);
    expectError(await call(calls.removePat(stranger, theirs.tokenId), p.adminToken), encoding, 5);
    // the org owner of the first org may not act on the other one
    expectError(await call(calls.addPat(stranger), p.orgOwnerToken, p.otherOrgId), encoding, 7);
    expectError(
      await call(calls.addPat(await machine(), { expirationDate: '2020-01-01T00:00:00Z' })),
      encoding,
      3,
      'invalid AddPersonalAccessTokenRequest.ExpirationDate: must be in the future (DOMAIN-dv3t5)',
    );
    expectError(await call(calls.addPat('')), encoding, 3, /^invalid AddPersonalAccessTokenRequest\.UserId: /);
  });

  it("is a bearer of the management API as its machine user, with that user's roles", async () => {
    const userName = unique('pat-user');
    const userId = (await okCall(calls.addMachineUser({ userName }))).userId;
    const { token, tokenId } = await okCall<AddedPat>(calls.addPat(userId));
    const me = await okCall<{ user: { id: string; userName: string } }>(getMyUser, token);
    expect(me.user).toMatchObject({ id: userId, userName });
    // no role yet: authenticated, not permitted
    expectError(await call(calls.listPats(userId), token), encoding, 7);
    await okCall(calls.addIamMember(userId), p.adminToken);
    expect(await okCall(calls.getPat(userId, tokenId), token)).toMatchObject({ token: { id: tokenId } });
    // removed: the next call is unauthenticated
    await okCall(calls.removePat(userId, tokenId));
    expectError(await call(getMyUser, token), encoding, 16);
    // and a locked user's token stops too
    const next = await okCall<AddedPat>(calls.addPat(userId));
    await okCall(lifecycle.userState(userId, 'lock'));
    expectError(await call(getMyUser, next.token), encoding, 16);
  });
});
