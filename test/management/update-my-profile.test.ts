// UpdateMyProfile and GetMyUser on REST, gRPC and gRPC-Web, with a human user's token from the code flow and a machine
// user's token from the JWT-profile grant.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, callRest, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken, jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';

const SEQUENCE = /^\d+$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const PASSWORD = 'Profile-Password-1';

const profile = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  nickName: 'ada',
  displayName: 'Ada Lovelace',
  preferredLanguage: 'en',
  gender: 'GENDER_FEMALE',
};
const update = (over: Record<string, unknown> = {}): ApiCall => ({
  service: AuthService,
  method: 'UpdateMyProfile',
  rest: ['PUT', '/auth/v1/users/me/profile'],
  body: { ...profile, ...over },
});
const getMyUser: ApiCall = { service: AuthService, method: 'GetMyUser', rest: ['GET', '/auth/v1/users/me'] };

describe('UpdateMyProfile', () => {
  let server: TestServer;
  let token: string;
  let userId: string;
  let orgId: string;
  let machineToken: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    const created = okJson<{ orgId: string; userId: string }>(
      await callRest(
        server.url,
        {
          service: AdminService,
          method: 'SetUpOrg',
          rest: ['POST', '/admin/v1/orgs/_setup'],
          body: {
            org: { name: 'Analytical Engines' },
            human: {
              userName: 'ada',
              profile: { firstName: 'Augusta', lastName: 'King' },
              email: { email: 'ada@example.com' },
              password: PASSWORD,
            },
          },
        },
        { token: started.adminToken },
      ),
    );
    ({ orgId, userId } = created);
    token = await humanToken(server, 'ada', PASSWORD);
    machineToken = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
  });
  afterAll(async () => server?.stop());

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it("changes the caller's profile and returns details of the change; GetMyUser shows it", async () => {
        const json = okJson<{ details: Record<string, string> }>(
          await callApi(server.url, encoding, update({ firstName: `Ada ${encoding}` }), { token }),
        );
        expect(Object.keys(json)).toEqual(['details']);
        expect(json.details).toEqual({
          sequence: expect.stringMatching(SEQUENCE),
          changeDate: expect.stringMatching(TIMESTAMP),
          resourceOwner: orgId,
        });
        const event = (
          await server.db.query('SELECT event_type, aggregate_id, creator FROM events WHERE sequence = $1', [
            json.details.sequence,
          ])
        ).rows[0];
        expect(event).toEqual({ event_type: 'user.human.profile.changed', aggregate_id: userId, creator: userId });

        const me = okJson<{ user: Record<string, unknown> }>(await callApi(server.url, encoding, getMyUser, { token }));
        expect(me).toEqual({
          user: {
            id: userId,
            details: {
              sequence: json.details.sequence,
              creationDate: expect.stringMatching(TIMESTAMP),
              changeDate: json.details.changeDate,
              resourceOwner: orgId,
            },
            state: 'USER_STATE_ACTIVE',
            userName: 'ada',
            loginNames: ['ada@analytical-engines.127.0.0.1'],
            preferredLoginName: 'ada@analytical-engines.127.0.0.1',
            human: {
              profile: { ...profile, firstName: `Ada ${encoding}` },
              email: { email: 'ada@example.com' },
              phone: {},
            },
          },
        });
      });

      it('a request that changes nothing is 400 FAILED_PRECONDITION and writes no event', async () => {
        await callApi(server.url, encoding, update({ firstName: `Same ${encoding}` }), { token });
        const events = (await server.db.query('SELECT count(*)::int AS n FROM events')).rows[0]!.n;
        const outcome = await callApi(server.url, encoding, update({ firstName: `Same ${encoding}` }), { token });
        expect(outcome).toMatchObject({ ok: false, code: 9, message: 'Profile not changed (COMMAND-2M0fs)' });
        if (encoding === 'rest') expect(outcome.status).toBe(400);
        expect((await server.db.query('SELECT count(*)::int AS n FROM events')).rows[0]!.n).toBe(events);
      });

      it('checks every field limit at its boundary', async () => {
        const ok = async (over: Record<string, unknown>) =>
          expect(
            (await callApi(server.url, encoding, update(over), { token })).ok,
            JSON.stringify(over).slice(0, 40),
          ).toBe(true);
        const bad = async (over: Record<string, unknown>, message: string) => {
          const outcome = await callApi(server.url, encoding, update(over), { token });
          expect(outcome).toMatchObject({ ok: false, code: 3, message });
          if (encoding === 'rest') expect(outcome.status).toBe(400);
        };
        const range = (field: string) =>
          `invalid UpdateMyProfileRequest.${field}: value length must be between 1 and 200 runes, inclusive`;
        await ok({
          firstName: 'f'.repeat(200),
          lastName: 'l'.repeat(200),
          nickName: `${encoding}`.padEnd(200, 'n'),
          displayName: 'd'.repeat(200),
          preferredLanguage: 'zh-Hant-TW',
        });
        await bad({ firstName: 'f'.repeat(201) }, range('FirstName'));
        await bad({ firstName: '' }, range('FirstName'));
        await bad({ lastName: 'l'.repeat(201) }, range('LastName'));
        await bad({ lastName: '' }, range('LastName'));
        await bad({ displayName: 'd'.repeat(201) }, range('DisplayName'));
        await bad({ displayName: '' }, range('DisplayName'));
        await bad(
          { nickName: 'n'.repeat(201) },
          'invalid UpdateMyProfileRequest.NickName: value length must be at most 200 runes',
        );
        await bad(
          { preferredLanguage: 'zh-Hant-TWX' },
          'invalid UpdateMyProfileRequest.PreferredLanguage: value length must be at most 10 runes',
        );
        await bad({ gender: 4 }, 'invalid UpdateMyProfileRequest.Gender: value must be one of the defined enum values');
      });

      it('a machine user may read itself but has no profile to update (400)', async () => {
        const outcome = await callApi(server.url, encoding, update(), { token: machineToken });
        expect(outcome).toMatchObject({ ok: false, code: 9, message: 'User is not a human user (COMMAND-2M9fs)' });
        if (encoding === 'rest') expect(outcome.status).toBe(400);
        const me = okJson<{ user: { machine: Record<string, unknown>; human?: unknown } }>(
          await callApi(server.url, encoding, getMyUser, { token: machineToken }),
        );
        expect(me.user.machine).toEqual({ name: 'Service', hasSecret: true });
        expect(me.user.human).toBeUndefined();
      });
    });
  }

  it('REST: snake_case members, enum numbers and unknown members', async () => {
    const body = {
      first_name: 'Snake',
      last_name: 'Case',
      nick_name: '',
      display_name: 'Snake Case',
      preferred_language: 'de',
      gender: 3,
      favourite_colour: 'green',
    };
    expect((await callRest(server.url, { ...update(), body }, { token })).ok).toBe(true);
    const row = (
      await server.db.query(
        'SELECT first_name, last_name, nick_name, display_name, preferred_language, gender FROM users WHERE id = $1',
        [userId],
      )
    ).rows[0];
    expect(row).toEqual({
      first_name: 'Snake',
      last_name: 'Case',
      nick_name: '',
      display_name: 'Snake Case',
      preferred_language: 'de',
      gender: 'GENDER_DIVERSE',
    });
  });
});
