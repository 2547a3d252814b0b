// SetUpOrg and GetOrgByID on REST, gRPC and gRPC-Web.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import {
  callApi,
  callRest,
  ENCODINGS,
  okJson,
  type ApiCall,
  type Encoding,
  type Outcome,
} from '../helpers/management.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';

const SEQUENCE = /^\d+$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

let unique = 0;
function setUpOrg(
  over: {
    org?: Record<string, unknown>;
    human?: Record<string, unknown>;
    profile?: Record<string, unknown>;
    roles?: string[];
  } = {},
): ApiCall {
  const n = `${Date.now().toString(36)}${unique++}`;
  return {
    service: AdminService,
    method: 'SetUpOrg',
    rest: ['POST', '/admin/v1/orgs/_setup'],
    body: {
      org: { name: `Org ${n}`, ...over.org },
      human: {
        userName: `user-${n}`,
        profile: {
          firstName: 'Grace',
          lastName: 'Hopper',
          preferredLanguage: 'en',
          gender: 'GENDER_FEMALE',
          ...over.profile,
        },
        email: { email: `grace-${n}@example.com`, isEmailVerified: true },
        password: 'Secret-Password-1',
        ...over.human,
      },
      ...(over.roles ? { roles: over.roles } : {}),
    },
  };
}

const getOrg = (id: string): ApiCall => ({
  service: AdminService,
  method: 'GetOrgByID',
  rest: ['GET', `/admin/v1/orgs/${id}`],
  body: { id },
});

function expectInvalid(outcome: Outcome, encoding: Encoding, message: string | RegExp, code = 3): void {
  expect(outcome).toMatchObject({ ok: false, code });
  if (!outcome.ok) {
    if (typeof message === 'string') expect(outcome.message).toBe(message);
    else expect(outcome.message).toMatch(message);
    if (encoding === 'rest') expect(outcome.status).toBe(400);
  }
}

describe('SetUpOrg', () => {
  let server: TestServer;
  let token: string;
  let orgOwnerToken: string;
  const count = async (table: string) =>
    (await server.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n as number;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    token = started.adminToken;
    // ORG_OWNER of the first org, but not IAM_OWNER
    orgOwnerToken = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
  });
  afterAll(async () => server?.stop());

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('creates org, domain, user with password and ORG_OWNER membership, and returns the exact shape', async () => {
        const call = setUpOrg({ org: { name: `Acme ${encoding} Ltd.` } });
        const outcome = await callApi(server.url, encoding, call, { token });
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const json = outcome.json as { details: Record<string, string>; orgId: string; userId: string };
        expect(Object.keys(json).sort()).toEqual(['details', 'orgId', 'userId']);
        expect(Object.keys(json.details).sort()).toEqual(['changeDate', 'creationDate', 'resourceOwner', 'sequence']);
        expect(json.details.sequence).toMatch(SEQUENCE);
        expect(json.details.creationDate).toMatch(TIMESTAMP);
        expect(json.details.resourceOwner).toBe(json.orgId);

        // the event the call wrote is the one Details names
        const event = (
          await server.db.query('SELECT event_type, resource_owner FROM events WHERE sequence = $1', [
            json.details.sequence,
          ])
        ).rows[0];
        expect(event).toEqual({ event_type: 'org.member.added', resource_owner: json.orgId });
        const user = (
          await server.db.query('SELECT org_id, password_hash, display_name, email_verified FROM users WHERE id = $1', [
            json.userId,
          ])
        ).rows[0]!;
        expect(user.org_id).toBe(json.orgId);
        expect(user.password_hash).toMatch(/^\$argon2id\$/);
        expect(user.display_name).toBe('Grace Hopper');
        expect(user.email_verified).toBe(true);
        const roles = (
          await server.db.query('SELECT resource_type, resource_id, roles FROM memberships WHERE user_id = $1', [
            json.userId,
          ])
        ).rows;
        expect(roles).toEqual([{ resource_type: 'org', resource_id: json.orgId, roles: ['ORG_OWNER'] }]);

        const read = await callApi(server.url, encoding, getOrg(json.orgId), { token });
        expect(read).toMatchObject({ ok: true });
        const org = okJson<{ org: Record<string, unknown> }>(read).org;
        expect(org).toEqual({
          id: json.orgId,
          state: 'ORG_STATE_ACTIVE',
          name: `Acme ${encoding} Ltd.`,
          primaryDomain: `acme-${encoding}-ltd.127.0.0.1`,
          details: {
            sequence: expect.stringMatching(SEQUENCE),
            creationDate: expect.stringMatching(TIMESTAMP),
            changeDate: expect.stringMatching(TIMESTAMP),
            resourceOwner: json.orgId,
          },
        });
      });

      it('keeps a given domain, grants the given roles and creates a user without password when none is given', async () => {
        const call = setUpOrg({
          org: { domain: `given-${encoding}.example.com` },
          human: { password: '' },
          roles: ['ORG_OWNER', 'ORG_USER_MANAGER'],
        });
        const outcome = await callApi(server.url, encoding, call, { token });
        expect(outcome.ok).toBe(true);
        const { orgId, userId } = okJson<{ orgId: string; userId: string }>(outcome);
        expect(
          (await server.db.query('SELECT primary_domain FROM orgs WHERE id = $1', [orgId])).rows[0]!.primary_domain,
        ).toBe(`given-${encoding}.example.com`);
        expect(
          (await server.db.query('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0]!.password_hash,
        ).toBeNull();
        expect(
          (await server.db.query('SELECT roles FROM memberships WHERE user_id = $1', [userId])).rows[0]!.roles,
        ).toEqual(['ORG_OWNER', 'ORG_USER_MANAGER']);
      });

      it('checks every field limit at its boundary', async () => {
        const ok = async (call: ApiCall) =>
          expect((await callApi(server.url, encoding, call, { token })).ok).toBe(true);
        const bad = async (call: ApiCall, message: string | RegExp) =>
          expectInvalid(await callApi(server.url, encoding, call, { token }), encoding, message);
        const human = 'invalid SetUpOrgRequest.Human: embedded message failed validation | caused by: ';
        const range = 'value length must be between 1 and 200 runes, inclusive';

        // a generated domain keeps only 63 characters of the name, so these long names get their own domain
        await ok(setUpOrg({ org: { name: `${unique++}`.padEnd(200, 'n'), domain: `long-${encoding}.example.com` } }));
        await bad(
          setUpOrg({ org: { name: 'n'.repeat(201) } }),
          `invalid SetUpOrgRequest.Org: embedded message failed validation | caused by: invalid ` +
            `SetUpOrgRequest_Org.Name: ${range}`,
        );
        await bad(
          setUpOrg({ org: { name: '' } }),
          `invalid SetUpOrgRequest.Org: embedded message failed validation | caused by: invalid ` +
            `SetUpOrgRequest_Org.Name: ${range}`,
        );
        await bad(
          setUpOrg({ org: { domain: 'd'.repeat(201) } }),
          'invalid SetUpOrgRequest.Org: embedded message failed validation | caused by: invalid ' +
            'SetUpOrgRequest_Org.Domain: value length must be at most 200 runes',
        );
        await ok(setUpOrg({ human: { userName: `${unique++}`.padEnd(200, 'u') } }));
        await bad(
          setUpOrg({ human: { userName: 'u'.repeat(201) } }),
          `${human}invalid SetUpOrgRequest_Human.UserName: ${range}`,
        );
        await bad(setUpOrg({ human: { userName: '' } }), `${human}invalid SetUpOrgRequest_Human.UserName: ${range}`);
        const profile =
          `${human}invalid SetUpOrgRequest_Human.Profile: embedded message failed validation | ` +
          `caused by: invalid SetUpOrgRequest_Human_Profile.`;
        await ok(
          setUpOrg({
            profile: {
              firstName: 'f'.repeat(200),
              lastName: 'l'.repeat(200),
              nickName: 'n'.repeat(200),
              displayName: 'd'.repeat(200),
              preferredLanguage: 'de-CH-1996',
            },
          }),
        );
        await bad(setUpOrg({ profile: { firstName: 'f'.repeat(201) } }), `${profile}FirstName: ${range}`);
        await bad(setUpOrg({ profile: { lastName: '' } }), `${profile}LastName: ${range}`);
        await bad(
          setUpOrg({ profile: { nickName: 'n'.repeat(201) } }),
          `${profile}NickName: value length must be at most 200 runes`,
        );
        await bad(
          setUpOrg({ profile: { displayName: 'd'.repeat(201) } }),
          `${profile}DisplayName: value length must be at most 200 runes`,
        );
        await bad(
          setUpOrg({ profile: { preferredLanguage: 'de-CH-19960' } }),
          `${profile}PreferredLanguage: value length must be at most 10 runes`,
        );
        await bad(
          setUpOrg({ profile: { gender: 9 } }),
          `${profile}Gender: value must be one of the defined enum values`,
        );
        const phone =
          `${human}invalid SetUpOrgRequest_Human.Phone: embedded message failed validation | caused ` +
          `by: invalid SetUpOrgRequest_Human_Phone.Phone: `;
        await ok(setUpOrg({ human: { phone: { phone: `+${'4'.repeat(49)}`, isPhoneVerified: true } } }));
        await bad(
          setUpOrg({ human: { phone: { phone: `+${'4'.repeat(50)}` } } }),
          `${phone}value length must be between 1 and 50 runes, inclusive`,
        );
        await bad(setUpOrg({ human: { phone: { phone: '0041791234567' } } }), `${phone}value does not have prefix "+"`);
        await bad(
          setUpOrg({ human: { email: { email: 'grace at example.com' } } }),
          `${human}invalid SetUpOrgRequest_Human.Email: embedded message failed validation | caused by: invalid ` +
            `SetUpOrgRequest_Human_Email.Email: value must be a valid email address`,
        );
        await bad(
          setUpOrg({ human: { email: { email: '' } } }),
          /SetUpOrgRequest_Human_Email\.Email: value must be a valid email address$/,
        );
        await bad(
          { ...setUpOrg(), body: { org: { name: 'No user' } } },
          'invalid SetUpOrgRequest.User: value is required',
        );
        await bad(
          setUpOrg({ roles: ['ORG_OWNER', 'GALAXY_OWNER'] }),
          'Role "GALAXY_OWNER" is not an organization role (ORG-4m9Fs)',
        );
        // passwords of at least 8 characters (OWASP ASVS 5.0 §6.2.1)
        await ok(setUpOrg({ human: { password: 'Eight-8!' } }));
        await bad(
          setUpOrg({ human: { password: 'Seven-7' } }),
          'Password must be between 8 and 1024 characters (COMMA-HuJf6)',
        );
      });

      it('answers 409 for a duplicate org name, domain or user name', async () => {
        const first = setUpOrg({ org: { domain: `dup-${encoding}.example.com` } });
        expect((await callApi(server.url, encoding, first, { token })).ok).toBe(true);
        const body = first.body as { org: { name: string }; human: { userName: string } };
        const conflicts: [ApiCall, string][] = [
          [setUpOrg({ org: { name: body.org.name.toUpperCase() } }), 'Organisation already exists (ORG-lapo2m)'],
          [setUpOrg({ org: { domain: `DUP-${encoding}.example.com` } }), 'Domain already exists (ORG-i2nl)'],
          [setUpOrg({ human: { userName: body.human.userName } }), 'User already exists (COMMAND-CtQ8w)'],
        ];
        for (const [call, message] of conflicts) {
          const outcome = await callApi(server.url, encoding, call, { token });
          expect(outcome).toMatchObject({ ok: false, code: 6, message });
          if (encoding === 'rest') expect(outcome.status).toBe(409);
        }
      });

      it('answers 403 to a caller without IAM_OWNER, before validating the request', async () => {
        for (const call of [setUpOrg(), setUpOrg({ org: { name: '' } })]) {
          const outcome = await callApi(server.url, encoding, call, { token: orgOwnerToken });
          expect(outcome).toMatchObject({ ok: false, code: 7, message: 'No matching permissions found (AUTH-5mWD2)' });
          if (encoding === 'rest') expect(outcome.status).toBe(403);
        }
        const missing = await callApi(server.url, encoding, getOrg('123'), { token: orgOwnerToken });
        expect(missing).toMatchObject({ ok: false, code: 7 });
      });

      it('GetOrgByID answers 404 for an unknown org', async () => {
        const outcome = await callApi(server.url, encoding, getOrg('4242'), { token });
        expect(outcome).toMatchObject({ ok: false, code: 5, message: 'Organisation not found (QUERY-iTTGJ)' });
        if (encoding === 'rest') expect(outcome.status).toBe(404);
      });
    });
  }

  it('a request that fails half-way leaves no rows and no event', async () => {
    const first = setUpOrg();
    expect((await callRest(server.url, first, { token })).ok).toBe(true);
    const tables = ['orgs', 'org_domains', 'users', 'memberships', 'events'];
    const before = await Promise.all(tables.map(count));
    // new org and domain, but a taken user name: the org must not survive
    const outcome = await callRest(
      server.url,
      setUpOrg({ human: { userName: (first.body as { human: { userName: string } }).human.userName } }),
      { token },
    );
    expect(outcome).toMatchObject({ status: 409, code: 6 });
    expect(await Promise.all(tables.map(count))).toEqual(before);
  });

  it('REST accepts snake_case members and ignores unknown ones', async () => {
    const n = `${Date.now().toString(36)}snake`;
    const body = {
      org: { name: `Snake ${n}`, unknown_member: 1 },
      human: {
        user_name: `snake-${n}`,
        whatever: { deep: true },
        profile: { first_name: 'Snake', last_name: 'Case', preferred_language: 'en', gender: 2 },
        email: { email: `snake-${n}@example.com`, is_email_verified: true },
        phone: { phone: '+41791234567', is_phone_verified: true },
      },
      roles: ['ORG_OWNER'],
      extra: 'ignored',
    };
    const outcome = await callRest(server.url, { ...setUpOrg(), body }, { token });
    expect(outcome.ok).toBe(true);
    const user = (
      await server.db.query(
        'SELECT user_name, first_name, last_name, gender, email_verified, phone, ' +
          'phone_verified FROM users WHERE id = $1',
        [okJson<{ userId: string }>(outcome).userId],
      )
    ).rows[0];
    expect(user).toEqual({
      user_name: `snake-${n}`,
      first_name: 'Snake',
      last_name: 'Case',
      gender: 'GENDER_MALE',
      email_verified: true,
      phone: '+41791234567',
      phone_verified: true,
    });
  });

  it('REST: path parameters win over query parameters of the same field', async () => {
    const { orgId } = okJson<{ orgId: string }>(await callRest(server.url, setUpOrg(), { token }));
    const read = await callRest(
      server.url,
      { ...getOrg(orgId), rest: ['GET', `/admin/v1/orgs/${orgId}?id=4242`] },
      { token },
    );
    expect(okJson<{ org: { id: string } }>(read).org.id).toBe(orgId);
  });

  it('REST rejects an unknown enum name and a body that is not JSON, with 400', async () => {
    const call = setUpOrg({ profile: { gender: 'GENDER_OTHER' } });
    expect(await callRest(server.url, call, { token })).toMatchObject({
      status: 400,
      code: 3,
      message: 'invalid SetUpOrgRequest_Human_Profile.Gender: value must be one of the defined enum values',
    });
    expect(await callRest(server.url, call, { token }, '{"org":')).toMatchObject({ status: 400, code: 3 });
    expect(await callRest(server.url, call, { token }, '"a string"')).toMatchObject({ status: 400, code: 3 });
  });

  it('REST: wrong types and invalid UTF-8 are a clear 400, a huge body 413 RESOURCE_EXHAUSTED, and nothing is written', async () => {
    const events = await count('events');
    const call = setUpOrg();
    const body = call.body as { org: Record<string, unknown> };
    expect(await callRest(server.url, { ...call, body: { ...body, org: { name: 42 } } }, { token })).toMatchObject({
      status: 400,
      code: 3,
    });
    expect(await callRest(server.url, { ...call, body: { ...body, roles: 'ORG_OWNER' } }, { token })).toMatchObject({
      status: 400,
      code: 3,
    });
    expect(
      await callRest(server.url, call, { token }, JSON.stringify({ ...body, padding: 'x'.repeat(300 * 1024) })),
    ).toMatchObject({ status: 413, code: 8 });
    const invalidUtf8 = Buffer.concat([Buffer.from('{"org":{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    const res = await fetch(`${server.url}/admin/v1/orgs/_setup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: invalidUtf8,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 3, message: 'invalid request body: not valid UTF-8' });
    expect(await count('events')).toBe(events);
  });

  it('never returns or logs the password', async () => {
    const call = setUpOrg({ human: { password: 'Very-Secret-Passw0rd!' } });
    const outcome = await callRest(server.url, call, { token });
    expect(JSON.stringify(outcome)).not.toContain('Very-Secret-Passw0rd!');
    expect(server.logs.join('')).not.toContain('Very-Secret-Passw0rd!');
    expect(JSON.stringify((await server.db.query('SELECT payload FROM events')).rows)).not.toContain(
      'Very-Secret-Passw0rd!',
    );
  });
});
