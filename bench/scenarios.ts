// What `npm run bench` measures: every scenario, for Gatehouse and, where it has one, the baseline, and the
// fixtures a Gatehouse needs before the first of them (prepare).
import { type Client, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { fromJson } from '@bufbuild/protobuf';
import { AdminService, SetUpOrgRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import type { HttpScenario } from './load.ts';
import { CALLBACK, type GatehouseTarget, type LookupUser, lookupUser, serviceAssertion, USER } from './gatehouse.ts';
import { codeRedemption, passwordLogin, silentReauthentication } from './login-flow.ts';
import { BASELINE_CALLBACK, type Baseline } from './baseline-target.ts';
import type { ScenarioResult } from './report.ts';
import { CONNECTIONS, DURATION, smoke, step } from './options.ts';
import {
  basic,
  CLIENT_CREDENTIALS,
  clientCredentialsToken,
  introspectionRequest,
  mintCodes,
  pushRequest,
  refreshChain,
  signedInBrowsers,
  tokenRequest,
  userinfoRequest,
  withBrowser,
} from './requests.ts';

export interface Scenario {
  name: string;
  connections?: number;
  target?: ScenarioResult['target'];
  gatehouse: () => Promise<HttpScenario | (() => Promise<void>)>;
  baseline?: () => Promise<HttpScenario | (() => Promise<void>)>;
}

// Numbers the orgs SetUpOrg creates, across every prepare() of the run: a restarted Gatehouse keeps its database.
let org = 0;

/** What the scenarios of one Gatehouse need, made before the first of them. */
export interface Prepared {
  gh: GatehouseTarget;
  token: string;
  assertion: string;
  /** Refresh tokens of signed-in sessions, one pool for every round of the run (each refresh puts its rotated
   *  token back), logged in when the refresh scenario first needs them. */
  refreshPool(): Promise<string[]>;
  admin: Client<typeof AdminService>;
  grpcHeaders: Record<string, string>;
  setUpOrgBody(): string;
  someUser(): LookupUser;
}

export async function prepare(gh: GatehouseTarget): Promise<Prepared> {
  const projectScope = `openid profile urn:zitadel:iam:org:project:id:${gh.projectId}:aud`;
  let refreshPool: Promise<string[]> | undefined;
  const logIn = async () => {
    step('logging in users for the refresh scenario');
    const pool: string[] = [];
    for (let i = 0; i < CONNECTIONS + 4; i += 4) {
      const logins = await Promise.all([0, 1, 2, 3].map(() => passwordLogin(gh.url, gh.web, USER)));
      pool.push(...logins.map((l) => l.refreshToken!));
    }
    return pool;
  };
  return {
    gh,
    token: await clientCredentialsToken(gh.url, gh.clientCredentials, projectScope),
    assertion: await serviceAssertion(gh.url, gh.serviceKey),
    refreshPool: () => (refreshPool ??= logIn()),
    admin: createClient(AdminService, createGrpcTransport({ baseUrl: gh.url })),
    grpcHeaders: { authorization: `Bearer ${gh.adminToken}` },
    setUpOrgBody: () =>
      JSON.stringify({
        org: { name: `Bench Org ${process.pid} ${org++}` },
        human: {
          userName: `bench-${process.pid}-${org}`,
          profile: { firstName: 'B', lastName: 'O' },
          email: { email: 'b@example.test' },
          password: 'Bench-Password-1',
        },
      }),
    someUser: () => lookupUser(gh),
  };
}

export interface PreparedBaseline extends Baseline {
  token: string;
}

// Scenarios that use tokens issued before the run come first: the baseline's in-memory adapter is an LRU of
// 1,000 entries, and every token-issuing scenario evicts older entries.
export function scenarioList(t: Prepared, bl: PreparedBaseline | undefined): Scenario[] {
  const { gh } = t;
  return [
    {
      name: 'discovery',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/.well-known/openid-configuration' }),
      baseline: bl && (async () => ({ path: '/.well-known/openid-configuration' })),
    },
    {
      name: 'jwks',
      target: { rps: 20_000, p99: 10, queries: 0 },
      gatehouse: async () => ({ path: '/oauth/v2/keys' }),
      baseline: bl && (async () => ({ path: '/oauth/v2/keys' })),
    },
    {
      name: 'userinfo',
      target: { rps: 5000, p99: 25, queries: 2 },
      gatehouse: async () => userinfoRequest(t.token),
      baseline: bl && (async () => userinfoRequest(bl.userAccessToken)),
    },
    {
      name: 'introspection',
      target: { rps: 5000, p99: 25, queries: 1, ratio: 0.6 },
      gatehouse: async () => introspectionRequest(gh.introspector, t.token),
      baseline: bl && (async () => introspectionRequest(bl.introspector, bl.token)),
    },
    // the management API's bearer check, the same read with the admin service account's access token (issued by the
    // JWT-profile grant) and with its personal access token: both are one lookup (oidc/queries.ts BEARER_SQL)
    ...(
      [
        ['access token', gh.adminToken],
        ['personal access token', gh.personalAccessToken],
      ] as const
    ).map(([kind, token]) => ({
      name: `GetMyOrg (REST), ${kind}`,
      gatehouse: async () => ({
        path: '/management/v1/orgs/me',
        headers: { authorization: `Bearer ${token}` },
        expectBody: '"primaryDomain"',
      }),
    })),
    {
      name: 'refresh',
      target: { rps: 1500, p99: 40, queries: 3, ratio: 1.5 },
      gatehouse: async () => refreshChain(gh.url, await t.refreshPool(), gh.web),
      // the baseline's one pool, rotated in place: a run of several rounds (`--rounds`) continues each chain, where
      // a copy of the tokens minted at start would present rotated, dead tokens again in round 2
      baseline: bl && (async () => refreshChain(bl.url, bl.refreshTokens, bl.web)),
    },
    {
      name: 'silent re-authentication (authorize prompt=none → code → token)',
      target: { rps: 500, queries: 6 },
      gatehouse: async () =>
        withBrowser(await signedInBrowsers(gh.url, gh.web, CONNECTIONS), async (browser) => {
          await silentReauthentication(gh.url, gh.web, browser);
        }),
    },
    {
      name: 'authorization code exchange (codes minted before)',
      target: { rps: 1500, queries: 3 },
      gatehouse: async () => {
        step('minting authorization codes');
        // a run of up to 2,500 exchanges a second, or as many codes as a minute mints; no warm-up (the silent
        // re-authentications before ran the same path)
        const codes = await mintCodes(
          gh.url,
          gh.web,
          await signedInBrowsers(gh.url, gh.web, CONNECTIONS),
          smoke ? 50 : 2500 * DURATION,
          60,
        );
        return {
          method: 'POST',
          path: '/oauth/v2/token',
          expectBody: '"access_token"',
          requests: () => codes.length,
          setupRequest: (request) => {
            const next = codes.pop();
            if (!next) throw new Error('no authorization codes left');
            const init = codeRedemption(gh.web, next.code, next.verifier);
            return { ...request, headers: init.headers as Record<string, string>, body: init.body as string };
          },
        };
      },
    },
    {
      name: 'client_credentials (opaque)',
      target: { rps: 3000, p99: 40, queries: 2, ratio: 0.5 },
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentials)),
      baseline: bl && (async () => tokenRequest('grant_type=client_credentials', basic(bl.clientCredentials))),
    },
    {
      // each push authenticates the client and stores one row (the request_uri's)
      name: 'PAR push (client_secret_basic)',
      gatehouse: async () => pushRequest(gh.web, CALLBACK),
      baseline: bl && (async () => pushRequest(bl.web, BASELINE_CALLBACK)),
    },
    {
      name: 'client_credentials (JWT)',
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentialsJwt)),
    },
    {
      name: 'JWT-profile grant',
      target: { rps: 1200, p99: 60, queries: 3 },
      gatehouse: async () =>
        tokenRequest(
          new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion: t.assertion,
            scope: 'openid',
          }).toString(),
        ),
    },
    {
      name: 'SetUpOrg (REST)',
      target: { rps: 100 },
      gatehouse: async () => ({
        method: 'POST',
        path: '/admin/v1/orgs/_setup',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gh.adminToken}` },
        setupRequest: (request) => ({ ...request, body: t.setUpOrgBody() }),
      }),
    },
    {
      name: 'SetUpOrg (gRPC)',
      gatehouse: async () => async () => {
        await t.admin.setUpOrg(fromJson(SetUpOrgRequestSchema, JSON.parse(t.setUpOrgBody())), {
          headers: t.grpcHeaders,
        });
      },
    },
    ...userLookupsAtScale(t),
    {
      name: 'password login (authorize → pages → code → token)',
      target: { rps: 75, p99: 300, queries: 10 },
      gatehouse: async () => async () => {
        await passwordLogin(gh.url, gh.web, USER, 'openid');
      },
    },
    {
      name: 'client_credentials, 1 connection',
      connections: 1,
      target: { p99: 5 },
      gatehouse: async () => tokenRequest(CLIENT_CREDENTIALS, basic(gh.clientCredentials)),
    },
    {
      name: 'introspection, 1 connection',
      connections: 1,
      target: { p99: 5 },
      gatehouse: async () => introspectionRequest(gh.introspector, t.token),
    },
  ];
}

/**
 * The user lookups at 1,000,000 users (target p99 < 20 ms): at 4 connections, an API client's concurrency, which
 * carries the target; and at the bench's 32, for their rate. 32 closed-loop connections on two cores are a queue:
 * each request waits for the 31 ahead of it, so the p99 there is Little's law (32 in flight / the rate), not a
 * lookup's latency; docs/performance.md works it out.
 */
function userLookupsAtScale(t: Prepared): Scenario[] {
  const { gh } = t;
  const lookups: Scenario[] = [
    {
      name: 'GetUserByID (REST)',
      gatehouse: async () => ({
        path: '/management/v1/users/_',
        headers: { authorization: `Bearer ${gh.adminToken}` },
        expectBody: '"userName"',
        setupRequest: (request) => {
          const user = t.someUser();
          return {
            ...request,
            path: `/management/v1/users/${user.id}`,
            headers: { ...request.headers, ...user.headers },
          };
        },
      }),
    },
    {
      // a search box's request, the user's name without its last character (the user is among the rows)
      name: 'ListUsers by user name prefix (REST)',
      gatehouse: async () => ({
        method: 'POST',
        path: '/management/v1/users/_search',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gh.adminToken}` },
        expectBody: '"userName"',
        setupRequest: (request) => {
          const user = t.someUser();
          return {
            ...request,
            headers: { ...request.headers, ...user.headers },
            body: JSON.stringify({
              query: { limit: 20 },
              queries: [
                { userNameQuery: { userName: user.userName.slice(0, -1), method: 'TEXT_QUERY_METHOD_STARTS_WITH' } },
              ],
            }),
          };
        },
      }),
    },
  ];
  const latency = { p99: 20 };
  return [
    ...lookups,
    ...lookups.map((s) => ({ ...s, name: `${s.name}, 4 connections`, connections: 4, target: latency })),
  ];
}
