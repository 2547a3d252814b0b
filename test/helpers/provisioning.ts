// The provisioning calls (orgs, projects, apps, users, keys) as ApiCalls (REST binding + request), and a server with
// the tokens the tests need: the first start's admin service account (IAM_OWNER), an ORG_OWNER of the first org, and a
// second org.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { TestServer } from './server.ts';
import { callApi, ENCODINGS, okJson, type ApiCall, type Encoding, type Outcome } from './management.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from './tokens.ts';
import { defaultOrgId } from './oidc.ts';

export const SEQUENCE = /^\d+$/;
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const M = ManagementService;

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export const calls = {
  getMyOrg: (): ApiCall => ({ service: M, method: 'GetMyOrg', rest: ['GET', '/management/v1/orgs/me'] }),
  addProject: (name = unique('project')): ApiCall => ({
    service: M,
    method: 'AddProject',
    rest: ['POST', '/management/v1/projects'],
    body: { name },
  }),
  addOidcApp: (projectId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddOIDCApp',
    rest: ['POST', `/management/v1/projects/${projectId}/apps/oidc`],
    body: {
      projectId,
      name: unique('app'),
      redirectUris: ['https://rp.example.com/callback'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      ...body,
    },
  }),
  addApiApp: (projectId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddAPIApp',
    rest: ['POST', `/management/v1/projects/${projectId}/apps/api`],
    body: { projectId, name: unique('api'), ...body },
  }),
  getApp: (projectId: string, appId: string): ApiCall => ({
    service: M,
    method: 'GetAppByID',
    rest: ['GET', `/management/v1/projects/${projectId}/apps/${appId}`],
    body: { projectId, appId },
  }),
  updateOidcConfig: (projectId: string, appId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'UpdateOIDCAppConfig',
    rest: ['PUT', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config`],
    body: {
      projectId,
      appId,
      redirectUris: ['https://rp.example.com/other'],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
      ...body,
    },
  }),
  addAppKey: (projectId: string, appId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddAppKey',
    rest: ['POST', `/management/v1/projects/${projectId}/apps/${appId}/keys`],
    body: { projectId, appId, type: 'KEY_TYPE_JSON', ...body },
  }),
  addMachineUser: (body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddMachineUser',
    rest: ['POST', '/management/v1/users/machine'],
    body: { userName: unique('svc'), name: 'Service', ...body },
  }),
  addMachineKey: (userId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddMachineKey',
    rest: ['POST', `/management/v1/users/${userId}/keys`],
    body: { userId, type: 'KEY_TYPE_JSON', ...body },
  }),
  addPat: (userId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'AddPersonalAccessToken',
    rest: ['POST', `/management/v1/users/${userId}/pats`],
    body: { userId, ...body },
  }),
  listPats: (userId: string, body: Record<string, unknown> = {}): ApiCall => ({
    service: M,
    method: 'ListPersonalAccessTokens',
    rest: ['POST', `/management/v1/users/${userId}/pats/_search`],
    body: { userId, ...body },
  }),
  getPat: (userId: string, tokenId: string): ApiCall => ({
    service: M,
    method: 'GetPersonalAccessTokenByIDs',
    rest: ['GET', `/management/v1/users/${userId}/pats/${tokenId}`],
    body: { userId, tokenId },
  }),
  removePat: (userId: string, tokenId: string): ApiCall => ({
    service: M,
    method: 'RemovePersonalAccessToken',
    rest: ['DELETE', `/management/v1/users/${userId}/pats/${tokenId}`],
    body: { userId, tokenId },
  }),
  generateMachineSecret: (userId: string): ApiCall => ({
    service: M,
    method: 'GenerateMachineSecret',
    rest: ['PUT', `/management/v1/users/${userId}/secret`],
    body: { userId },
  }),
  importHumanUser: (body: Record<string, unknown> = {}): ApiCall => {
    const userName = unique('human');
    return {
      service: M,
      method: 'ImportHumanUser',
      rest: ['POST', '/management/v1/users/human/_import'],
      body: {
        userName,
        profile: { firstName: 'Ada', lastName: 'Lovelace', gender: 'GENDER_FEMALE' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        password: 'Imported-Password-1',
        ...body,
      },
    };
  },
  getUser: (id: string): ApiCall => ({
    service: M,
    method: 'GetUserByID',
    rest: ['GET', `/management/v1/users/${id}`],
    body: { id },
  }),
  deactivateUser: (id: string): ApiCall => ({
    service: M,
    method: 'DeactivateUser',
    rest: ['POST', `/management/v1/users/${id}/_deactivate`],
    body: { id },
  }),
  addIamMember: (userId: string, roles = ['IAM_OWNER']): ApiCall => ({
    service: AdminService,
    method: 'AddIAMMember',
    rest: ['POST', '/admin/v1/members'],
    body: { userId, roles },
  }),
};

export interface ProvisioningServer {
  server: TestServer;
  /** IAM_OWNER (the first start's admin service account). */
  adminToken: string;
  /** ORG_OWNER of the first org only. */
  orgOwnerToken: string;
  firstOrgId: string;
  /** An org created with SetUpOrg, where the ORG_OWNER above has no role. */
  otherOrgId: string;
}

export async function startProvisioningServer(): Promise<ProvisioningServer> {
  const { server, adminToken } = await startServerWithAdminKey();
  const orgOwnerToken = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
  const setUp: ApiCall = {
    service: AdminService,
    method: 'SetUpOrg',
    rest: ['POST', '/admin/v1/orgs/_setup'],
    body: {
      org: { name: unique('Other Org') },
      human: {
        userName: unique('other-owner'),
        profile: { firstName: 'O', lastName: 'Owner' },
        email: { email: `${unique('o')}@example.com` },
      },
    },
  };
  const { orgId } = okJson<{ orgId: string }>(await callApi(server.url, 'rest', setUp, { token: adminToken }));
  return { server, adminToken, orgOwnerToken, firstOrgId: await defaultOrgId(server), otherOrgId: orgId };
}

/** A management answer as the provisioning tests read it (proto3 JSON names): ids, names, secrets and sequences are
 *  strings, nested messages are answers themselves, and any other member is unknown until narrowed. */
export interface ApiAnswer {
  id: string;
  orgId: string;
  userId: string;
  appId: string;
  keyId: string;
  clientId: string;
  clientSecret: string;
  keyDetails: string;
  state: string;
  sequence: string;
  preferredLoginName: string;
  details: Record<string, string>;
  org: ApiAnswer;
  app: ApiAnswer;
  user: ApiAnswer;
  oidcConfig: ApiAnswer;
  apiConfig: ApiAnswer;
  complianceProblems: { key: string; localizedMessage: string }[];
  [member: string]: unknown;
}

/** Calls and requires success. */
/** What a test of one encoding works with: the file's server, and calls made as the org owner unless told. */
export interface EncodingSuite {
  encoding: Encoding;
  /** The file's provisioning server (started before the first test; read it inside tests). */
  p: ProvisioningServer;
  call(c: ApiCall, token?: string, orgId?: string): Promise<Outcome>;
  okCall<T = ApiAnswer>(c: ApiCall, token?: string, orgId?: string): Promise<T>;
}

/** One provisioning server for the suite, and the tests `body` declares run once per encoding (REST, gRPC and
 *  gRPC-Web) against it. */
export function describeEachEncoding(title: string, body: (suite: EncodingSuite) => void): void {
  describe(title, () => {
    let started: ProvisioningServer | undefined;
    beforeAll(async () => {
      started = await startProvisioningServer();
    });
    afterAll(async () => started?.server.stop());
    // Declared before the server starts: the tests read it through this view when they run.
    const p = new Proxy({} as ProvisioningServer, {
      get: (_target, key) => {
        if (!started) throw new Error('the provisioning server is not started yet');
        return Reflect.get(started, key);
      },
    });
    for (const encoding of ENCODINGS) {
      describe(encoding, () =>
        body({
          encoding,
          p,
          call: (c, token = p.orgOwnerToken, orgId) => callApi(p.server.url, encoding, c, { token, orgId }),
          okCall: (c, token = p.orgOwnerToken, orgId) => ok(p.server, encoding, c, token, orgId),
        }),
      );
    }
  });
}

export async function ok<T = ApiAnswer>(
  server: TestServer,
  encoding: Encoding,
  call: ApiCall,
  token: string,
  orgId?: string,
): Promise<T> {
  return okJson<T>(await callApi(server.url, encoding, call, { token, orgId }));
}

export function expectError(outcome: Outcome, encoding: Encoding, code: number, message?: string | RegExp): void {
  expect(outcome).toMatchObject({ ok: false, code });
  if (outcome.ok) return;
  if (typeof message === 'string') expect(outcome.message).toBe(message);
  else if (message) expect(outcome.message).toMatch(message);
  const status: Record<number, number> = { 3: 400, 5: 404, 6: 409, 7: 403, 9: 400, 16: 401 };
  if (encoding === 'rest') expect(outcome.status).toBe(status[code]);
}

export function expectCreatedDetails(details: Record<string, string>, resourceOwner: string): void {
  expect(Object.keys(details).sort()).toEqual(['changeDate', 'creationDate', 'resourceOwner', 'sequence']);
  expect(details.sequence).toMatch(SEQUENCE);
  expect(details.creationDate).toMatch(TIMESTAMP);
  expect(details.resourceOwner).toBe(resourceOwner);
}

export function expectChangedDetails(details: Record<string, string>, resourceOwner: string): void {
  expect(Object.keys(details).sort()).toEqual(['changeDate', 'resourceOwner', 'sequence']);
  expect(details.sequence).toMatch(SEQUENCE);
  expect(details.changeDate).toMatch(TIMESTAMP);
  expect(details.resourceOwner).toBe(resourceOwner);
}

export const decodeKeyDetails = (keyDetails: string) =>
  JSON.parse(Buffer.from(keyDetails, 'base64').toString('utf8')) as Record<string, string>;
