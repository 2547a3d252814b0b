// AddJWTIDP and GetIDPByID on REST, gRPC and gRPC-Web.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, callRest, ENCODINGS, okJson, type ApiCall } from '../helpers/management.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';

const SEQUENCE = /^\d+$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const FIELDS = ['name', 'jwtEndpoint', 'issuer', 'keysEndpoint', 'headerName'] as const;
const URL_FIELDS = new Set<string>(['jwtEndpoint', 'keysEndpoint']);
const GO_NAMES: Record<(typeof FIELDS)[number], string> = {
  name: 'Name',
  jwtEndpoint: 'JwtEndpoint',
  issuer: 'Issuer',
  keysEndpoint: 'KeysEndpoint',
  headerName: 'HeaderName',
};

function addJwtIdp(over: Record<string, unknown> = {}): ApiCall {
  return {
    service: AdminService,
    method: 'AddJWTIDP',
    rest: ['POST', '/admin/v1/idps/jwt'],
    body: {
      name: 'Partner SSO',
      stylingType: 'STYLING_TYPE_GOOGLE',
      jwtEndpoint: 'https://partner.example.com/jwt',
      issuer: 'https://partner.example.com',
      keysEndpoint: 'https://partner.example.com/keys',
      headerName: 'x-partner-jwt',
      autoRegister: true,
      ...over,
    },
  };
}
const getIdp = (id: string): ApiCall => ({
  service: AdminService,
  method: 'GetIDPByID',
  rest: ['GET', `/admin/v1/idps/${id}`],
  body: { id },
});

describe('AddJWTIDP', () => {
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

  for (const encoding of ENCODINGS) {
    describe(encoding, () => {
      it('stores the instance-level JWT IdP and returns details and idpId; GetIDPByID returns it', async () => {
        const json = okJson<{ details: Record<string, string>; idpId: string }>(
          await callApi(server.url, encoding, addJwtIdp(), { token }),
        );
        expect(Object.keys(json).sort()).toEqual(['details', 'idpId']);
        expect(json.idpId).toMatch(/^\d+$/);
        expect(json.details).toEqual({
          sequence: expect.stringMatching(SEQUENCE),
          creationDate: expect.stringMatching(TIMESTAMP),
          changeDate: expect.stringMatching(TIMESTAMP),
          resourceOwner: instanceId,
        });
        const event = (
          await server.db.query('SELECT event_type, aggregate_id FROM events WHERE sequence = $1', [
            json.details.sequence,
          ])
        ).rows[0];
        expect(event).toEqual({ event_type: 'instance.idp.jwt.added', aggregate_id: instanceId });

        const read = okJson<{ idp: Record<string, unknown> }>(
          await callApi(server.url, encoding, getIdp(json.idpId), { token }),
        );
        expect(read.idp).toEqual({
          id: json.idpId,
          details: { ...json.details },
          state: 'IDP_STATE_ACTIVE',
          name: 'Partner SSO',
          stylingType: 'STYLING_TYPE_GOOGLE',
          owner: 'IDP_OWNER_TYPE_SYSTEM',
          autoRegister: true,
          jwtConfig: {
            jwtEndpoint: 'https://partner.example.com/jwt',
            issuer: 'https://partner.example.com',
            keysEndpoint: 'https://partner.example.com/keys',
            headerName: 'x-partner-jwt',
          },
        });
      });

      it('checks every field limit at its boundary and the styling type', async () => {
        for (const field of FIELDS) {
          // the URL fields are URLs at every length (no file:, data: or cleartext URL to another host)
          const longest = URL_FIELDS.has(field) ? `https://partner.example.com/${'x'.repeat(172)}` : 'x'.repeat(200);
          expect((await callApi(server.url, encoding, addJwtIdp({ [field]: longest }), { token })).ok, field).toBe(
            true,
          );
          for (const value of ['x'.repeat(201), '']) {
            const outcome = await callApi(server.url, encoding, addJwtIdp({ [field]: value }), { token });
            expect(outcome, field).toMatchObject({
              ok: false,
              code: 3,
              message:
                `invalid AddJWTIDPRequest.${GO_NAMES[field]}: value length must be between 1 and 200 runes, ` +
                `inclusive`,
            });
            if (encoding === 'rest') expect(outcome.status).toBe(400);
          }
        }
        const undefinedStyle = await callApi(server.url, encoding, addJwtIdp({ stylingType: 7 }), { token });
        expect(undefinedStyle).toMatchObject({
          ok: false,
          code: 3,
          message: 'invalid AddJWTIDPRequest.StylingType: value must be one of the defined enum values',
        });
        const defaults = okJson<{ idpId: string }>(
          await callApi(server.url, encoding, addJwtIdp({ stylingType: undefined, autoRegister: undefined }), {
            token,
          }),
        );
        const stored = (
          await server.db.query('SELECT styling_type, auto_register FROM idps WHERE id = $1', [defaults.idpId])
        ).rows[0];
        expect(stored).toEqual({ styling_type: 'STYLING_TYPE_UNSPECIFIED', auto_register: false });
      });

      it('refuses jwtEndpoint and keysEndpoint that are not https URLs without credentials or fragment, and writes nothing', async () => {
        const before = (await server.db.query('SELECT count(*)::int AS n FROM idps')).rows[0]!.n;
        const refused: Array<[string, string]> = [
          ['file:///etc/passwd', 'must be an https URL (http only for loopback hosts)'],
          ['http://169.254.169.254/latest/meta-data/', 'must be an https URL (http only for loopback hosts)'],
          ['http://partner.example.com/keys', 'must be an https URL (http only for loopback hosts)'],
          ['not a url', 'must be an absolute URL'],
          ['/relative/keys', 'must be an absolute URL'],
          ['https://user:secret@partner.example.com/keys', 'must not contain credentials'],
          ['https://partner.example.com/keys#part', 'must not contain a fragment'],
          ['https://partner.example.com/keys#', 'must not contain a fragment'],
        ];
        for (const [field, goName] of [
          ['jwtEndpoint', 'JwtEndpoint'],
          ['keysEndpoint', 'KeysEndpoint'],
        ]) {
          for (const [value, reason] of refused) {
            const outcome = await callApi(server.url, encoding, addJwtIdp({ [field!]: value }), { token });
            expect(outcome, `${field} ${value}`).toMatchObject({
              ok: false,
              code: 3,
              message: `invalid AddJWTIDPRequest.${goName}: ${reason} (IDP-Url5s)`,
            });
            if (encoding === 'rest') expect(outcome.status).toBe(400);
          }
        }
        expect((await server.db.query('SELECT count(*)::int AS n FROM idps')).rows[0]!.n).toBe(before);
        // plain http is fine for loopback hosts (a local IdP in development)
        for (const host of ['localhost:9000', '127.0.0.1:9000', '[::1]:9000']) {
          expect(
            (
              await callApi(
                server.url,
                encoding,
                addJwtIdp({ jwtEndpoint: `http://${host}/jwt`, keysEndpoint: `http://${host}/keys` }),
                { token },
              )
            ).ok,
            host,
          ).toBe(true);
        }
      });

      it('answers 403 to a caller without IAM_OWNER, before validation, and writes nothing', async () => {
        const before = (await server.db.query('SELECT count(*)::int AS n FROM idps')).rows[0]!.n;
        for (const call of [addJwtIdp(), addJwtIdp({ name: '' })]) {
          const outcome = await callApi(server.url, encoding, call, { token: orgOwnerToken });
          expect(outcome).toMatchObject({ ok: false, code: 7, message: 'No matching permissions found (AUTH-5mWD2)' });
          if (encoding === 'rest') expect(outcome.status).toBe(403);
        }
        expect((await server.db.query('SELECT count(*)::int AS n FROM idps')).rows[0]!.n).toBe(before);
      });

      it('GetIDPByID answers 404 for an unknown id', async () => {
        const outcome = await callApi(server.url, encoding, getIdp('777'), { token });
        expect(outcome).toMatchObject({ ok: false, code: 5, message: 'IDP not found (IDP-4M9fs)' });
        if (encoding === 'rest') expect(outcome.status).toBe(404);
      });
    });
  }

  it('REST: snake_case members, enum numbers and unknown members', async () => {
    const body = {
      name: 'Snake IdP',
      styling_type: 1,
      jwt_endpoint: 'https://s.example.com/jwt',
      issuer: 'https://s.example.com',
      keys_endpoint: 'https://s.example.com/keys',
      header_name: 'authorization',
      auto_register: true,
      not_a_field: [1, 2],
    };
    const { idpId } = okJson<{ idpId: string }>(await callRest(server.url, { ...addJwtIdp(), body }, { token }));
    const stored = (
      await server.db.query(
        'SELECT name, styling_type, jwt_endpoint, keys_endpoint, header_name, auto_register FROM idps WHERE id = $1',
        [idpId],
      )
    ).rows[0];
    expect(stored).toEqual({
      name: 'Snake IdP',
      styling_type: 'STYLING_TYPE_GOOGLE',
      jwt_endpoint: 'https://s.example.com/jwt',
      keys_endpoint: 'https://s.example.com/keys',
      header_name: 'authorization',
      auto_register: true,
    });
    expect(await callRest(server.url, addJwtIdp({ stylingType: 'STYLING_TYPE_FANCY' }), { token })).toMatchObject({
      status: 400,
      code: 3,
      message: 'invalid AddJWTIDPRequest.StylingType: value must be one of the defined enum values',
    });
  });
});
