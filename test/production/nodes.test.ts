// Several nodes: three Gatehouse processes behind HAProxy on PgBouncer and one PostgreSQL (test/helpers/cluster.ts,
// from deploy/). Whatever a request needs is in the database, so any node serves any request: a sign-in hops between
// nodes, a rotated key is served and accepted everywhere, a deactivation and failed passwords count on every node, and
// a rolling restart under load fails no request.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { sleep, startLoad, until } from '../helpers/load.ts';
import { basic, Browser, CALLBACK, pkceAuthorization, postForm } from '../helpers/oidc.ts';
import { isPostgres } from '../helpers/postgres.ts';
import type { TestServer } from '../helpers/server.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe.runIf(isPostgres)('three nodes behind HAProxy, on PgBouncer and one PostgreSQL', () => {
  let cluster: Cluster;
  let token = '';
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    const json = (await res.json()) as Record<string, string>;
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  /** An OIDC app (Basic) with refresh tokens, in a project of its own. */
  const createApp = async () => {
    const project = await api('POST', '/management/v1/projects', { name: unique('project') });
    return api('POST', `/management/v1/projects/${project.id}/apps/oidc`, {
      name: 'web',
      redirectUris: [CALLBACK],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      appType: 'OIDC_APP_TYPE_WEB',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    });
  };
  const createHuman = async (password: string) => {
    const userName = unique('human');
    const { userId } = await api('POST', '/management/v1/users/human/_import', {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password,
      passwordChangeRequired: false,
    });
    return { userId: userId!, userName };
  };

  /** A browser whose every request goes to the next node in turn; URLs name the issuer (the balancer). The requests
   *  say they were relayed (X-Forwarded-For, as a balancer adds it), so a node does not send the pages' requests to
   *  the issuer's host as it does for a browser that reached it by another name. */
  class HoppingBrowser {
    readonly browser = new Browser({ url: '', config: { issuer: '' } } as unknown as TestServer, {
      'x-forwarded-for': '127.0.0.1',
    });
    readonly served: string[] = [];
    #next: number;
    /** `first`: the index of the node the first request goes to. */
    constructor(first = 0) {
      this.#next = first;
    }
    async request(url: string, init: RequestInit = {}) {
      const node = cluster.nodes[this.#next++ % cluster.nodes.length]!;
      const target = new URL(url, cluster.url);
      this.served.push(node.url);
      return this.browser.request(`${node.url}${target.pathname}${target.search}`, init);
    }
    /** Follows redirects within the issuer, one node per request; returns the first answer that leaves it. */
    async follow(url: string, init: RequestInit = {}) {
      let current = new URL(url, cluster.url).toString();
      let response = await this.request(current, init);
      for (let i = 0; i < 10 && response.status >= 300 && response.status < 400; i++) {
        current = new URL(response.headers.get('location')!, cluster.url).toString();
        if (!current.startsWith(cluster.url)) break;
        response = await this.request(current);
      }
      return { response, url: current };
    }
    /** Posts the password form of the login page at `loginUrl` (page fetched from one node, posted to the next). */
    async postPassword(loginUrl: string, loginName: string, password: string) {
      const page = await (await this.request(loginUrl)).text();
      const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
      return this.follow(`${loginUrl}/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: cluster.url },
        body: new URLSearchParams({ csrf, loginName, password }),
      });
    }
  }

  /** A code flow whose every request goes to another node than the one before; returns the token response. */
  const signIn = async (app: Record<string, string>, loginName: string, password: string) => {
    const hopping = new HoppingBrowser();
    const { url, verifier } = await pkceAuthorization({ url: cluster.url }, app.clientId!, {
      scope: 'openid profile offline_access',
    });
    const login = await hopping.follow(url.toString());
    expect(login.url).toContain('/ui/login/');
    const done = await hopping.postPassword(login.url, loginName, password);
    expect(done.url.startsWith(CALLBACK)).toBe(true);
    const node = cluster.nodes[hopping.served.length % cluster.nodes.length]!;
    const tokens = await postForm(
      `${node.url}/oauth/v2/token`,
      {
        grant_type: 'authorization_code',
        code: new URL(done.url).searchParams.get('code')!,
        redirect_uri: CALLBACK,
        code_verifier: verifier,
      },
      { authorization: basic(app.clientId!, app.clientSecret!) },
    );
    expect(tokens.status).toBe(200);
    return { tokens: tokens.json, hopping, served: [...hopping.served, node.url] };
  };

  beforeAll(async () => {
    cluster = await startCluster({
      env: { GATEHOUSE_REGISTRATION_PER_IP: '3' },
      // the same nodes checked over HTTP/1.1, in a backend of the test's own next to the deployed (HTTP/2) one
      extraHaproxy: (ports) => [
        'backend nodes_h1',
        '  option httpchk GET /readyz',
        '  http-check expect status 200',
        ...ports.map((port, i) => `  server node${i + 1} 127.0.0.1:${port} check inter 1s fall 2 rise 2`),
      ],
    });
    token = await cluster.adminToken();
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it("passes HAProxy's ordinary health checks over HTTP/2 (the deployed backend) and HTTP/1.1", async () => {
    // the balancer started before the nodes, so the first checks failed; from now on none may
    const stats = async (backend: string) =>
      (await cluster.haproxy.servers(backend)).map((s) => [s.name, s.status, s.checkStatus, s.failedChecks]);
    const healthy = async (backend: string) =>
      (await stats(backend)).every(([, status, check]) => status === 'UP' && check === 'L7OK');
    await until(async () => (await healthy('nodes')) && (await healthy('nodes_h1')), 10_000, 'both backends UP');
    const before = { nodes: await stats('nodes'), nodes_h1: await stats('nodes_h1') };
    await sleep(3000); // some checks on every server, each of which would count a failure
    for (const backend of ['nodes', 'nodes_h1'] as const) {
      expect(before[backend].map(([name, status, check]) => [name, status, check])).toEqual(
        ['node1', 'node2', 'node3'].map((name) => [name, 'UP', 'L7OK']),
      );
      expect(await stats(backend)).toEqual(before[backend]);
    }
  });

  it('a sign-in whose requests alternate between the nodes works, and so do its tokens on every node', async () => {
    const app = await createApp();
    const password = 'Hopping-Password-1';
    const user = await createHuman(password);
    const { tokens, served } = await signIn(app, user.userName, password);
    // authorize, login page, password post, resume, (consent) ..., code exchange: every step on another node
    expect(served.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < served.length; i++) expect(served[i]).not.toBe(served[i - 1]);
    for (const node of cluster.nodes) {
      const userinfo = await fetch(`${node.url}/oidc/v1/userinfo`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(userinfo.status).toBe(200);
      expect(await userinfo.json()).toMatchObject({ sub: user.userId });
    }
    // the refresh token rotates on one node and its successor works on the next
    let refresh = tokens.refresh_token;
    for (const node of cluster.nodes) {
      const refreshed = await postForm(
        `${node.url}/oauth/v2/token`,
        { grant_type: 'refresh_token', refresh_token: refresh },
        { authorization: basic(app.clientId!, app.clientSecret!) },
      );
      expect(refreshed.status).toBe(200);
      refresh = refreshed.json.refresh_token;
    }
  });

  it('a key rotated on one node is served by every node, and what each node signs with it is accepted by all', async () => {
    const machine = await api('POST', '/management/v1/users/machine', {
      userName: unique('jwt-svc'),
      name: 'JWT service',
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
    });
    const secret = await api('PUT', `/management/v1/users/${machine.userId}/secret`);
    const issue = async (nodeUrl: string) => {
      const res = await postForm(
        `${nodeUrl}/oauth/v2/token`,
        { grant_type: 'client_credentials', scope: 'openid' },
        { authorization: basic(secret.clientId!, secret.clientSecret!) },
      );
      expect(res.status).toBe(200);
      return res.json.access_token;
    };
    const published = async (nodeUrl: string) =>
      (await (await fetch(`${nodeUrl}/oauth/v2/keys`)).json()) as JSONWebKeySet;

    // `gatehouse keys rotate` on node1's host, through the pooler as node1 runs: published now, signing in 3 s
    const rotated = await runCli(['keys', 'rotate'], { ...cluster.env(0), GATEHOUSE_KEY_ACTIVATION_DELAY: '3' });
    const { kid } = JSON.parse(rotated) as { kid: string };
    const rotatedAt = Date.now();
    // every node publishes it before it signs: within the reload interval (GATEHOUSE_KEY_RELOAD_INTERVAL_MS, 5 s)
    for (const node of cluster.nodes)
      await until(async () => (await published(node.url)).keys.some((k) => k.kid === kid), 6000, `${node.url} jwks`);
    // then every node signs with it, within activation delay + reload interval
    const signed: string[] = [];
    for (const node of cluster.nodes) {
      await until(
        async () => decodeProtectedHeader(await issue(node.url)).kid === kid,
        3000 + 6000 - (Date.now() - rotatedAt) + 2000,
        `${node.url} signs with ${kid}`,
      );
      signed.push(await issue(node.url));
    }
    // what any node signed verifies against any node's key set, and is accepted at any node's userinfo
    for (const jwt of signed)
      for (const node of cluster.nodes) {
        await jwtVerify(jwt, createLocalJWKSet(await published(node.url)), { issuer: cluster.url });
        const userinfo = await fetch(`${node.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${jwt}` } });
        expect(userinfo.status).toBe(200);
      }
  });

  it('a user deactivated through one node is refused by every node at once', async () => {
    const app = await createApp();
    const password = 'Leaving-Password-1';
    const user = await createHuman(password);
    const { tokens, hopping } = await signIn(app, user.userName, password);
    await fetch(`${cluster.nodes[0]!.url}/management/v1/users/${user.userId}/_deactivate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    }).then((res) => expect(res.status).toBe(200));

    for (const node of cluster.nodes) {
      const userinfo = await fetch(`${node.url}/oidc/v1/userinfo`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(userinfo.status).toBe(401);
      const refreshed = await postForm(
        `${node.url}/oauth/v2/token`,
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { authorization: basic(app.clientId!, app.clientSecret!) },
      );
      expect(refreshed.json.error).toBe('invalid_grant');
    }
    // the browser's session no longer signs in silently, on any node
    for (let i = 0; i < cluster.nodes.length; i++) {
      const { url } = await pkceAuthorization({ url: cluster.url }, app.clientId!, { prompt: 'none' });
      const silent = await hopping.follow(url.toString());
      expect(new URL(silent.url).searchParams.get('error')).toBe('login_required');
    }
    // and the password no longer signs in
    const { url } = await pkceAuthorization({ url: cluster.url }, app.clientId!);
    const fresh = new HoppingBrowser();
    const login = await fresh.follow(url.toString());
    const refused = await fresh.postPassword(login.url, user.userName, password);
    expect(refused.response.status).toBe(401);
  });

  it('failed passwords count across nodes: the fifth failure locks the account on every node', async () => {
    const app = await createApp();
    const password = 'Guessed-Password-1';
    const user = await createHuman(password);
    const hopping = new HoppingBrowser();
    const { url } = await pkceAuthorization({ url: cluster.url }, app.clientId!);
    const login = await hopping.follow(url.toString());
    // GATEHOUSE_LOCKOUT_MAX_ATTEMPTS (5) wrong guesses, each page and post on other nodes than the one before; the
    // fifth spends the budget and locks
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await hopping.postPassword(login.url, user.userName, `wrong-${i}`)).response.status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(new Set(hopping.served).size).toBe(3);
    for (let i = 0; i < cluster.nodes.length; i++) {
      const locked = await hopping.postPassword(login.url, user.userName, password);
      expect(locked.response.status).toBe(429);
      expect(locked.response.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('a lockout policy set through one node holds on every node at the next attempt', async () => {
    // the statements that count an attempt read the policy themselves: no cache, so no delay on any node
    await api('PUT', '/admin/v1/policies/password/lockout', { maxPasswordAttempts: 3 });
    try {
      const app = await createApp();
      const user = await createHuman('Guessed-Password-2');
      const hopping = new HoppingBrowser(1);
      const login = await hopping.follow((await pkceAuthorization({ url: cluster.url }, app.clientId!)).url.toString());
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await hopping.postPassword(login.url, user.userName, `wrong-${i}`)).response.status);
      expect(statuses).toEqual([401, 401, 429]);
      expect(new Set(hopping.served).size).toBe(3);
    } finally {
      await api('PUT', '/admin/v1/policies/password/lockout', { maxPasswordAttempts: 5 });
    }
  });

  it('self-registrations from one address count across nodes (GATEHOUSE_REGISTRATION_PER_IP, 3 here)', async () => {
    const app = await createApp();
    let attempts = 0;
    const register = async () => {
      const hopping = new HoppingBrowser(attempts++);
      const { url } = await pkceAuthorization({ url: cluster.url }, app.clientId!, { prompt: 'create' });
      const form = await hopping.follow(url.toString());
      const page = await (await hopping.request(form.url)).text();
      const userName = unique('registered');
      const answer = await hopping.request(`${form.url}/register`, {
        method: 'POST',
        // the client behind the balancer, as HAProxy names it (the nodes trust 127.0.0.1 as their proxy)
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: cluster.url,
          'x-forwarded-for': '203.0.113.50',
        },
        body: new URLSearchParams({
          csrf: /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '',
          firstName: 'R',
          lastName: 'L',
          email: `${userName}@example.com`,
          userName,
          password: 'Registration-Password-1',
        }),
      });
      return { status: answer.status, node: hopping.served.at(-1) };
    };
    const admitted = [await register(), await register(), await register()];
    expect(admitted.map((a) => a.status)).toEqual([303, 303, 303]);
    expect(new Set(admitted.map((a) => a.node)).size).toBeGreaterThan(1);
    const refused = [await register(), await register(), await register()];
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(new Set(refused.map((r) => r.node)).size).toBe(3);
  });

  it('a rolling restart under load (SIGTERM to each node in turn) fails no request', async () => {
    const machine = await api('POST', '/management/v1/users/machine', { userName: unique('svc'), name: 'Load' });
    const secret = await api('PUT', `/management/v1/users/${machine.userId}/secret`);
    const credentials = { authorization: basic(secret.clientId!, secret.clientSecret!) };
    const failures: string[] = [];
    // a token, its introspection by the resource owner (the machine user's own token) and userinfo
    const load = startLoad(
      4,
      async () => {
        const issued = await postForm(
          `${cluster.url}/oauth/v2/token`,
          { grant_type: 'client_credentials', scope: 'openid' },
          credentials,
        );
        if (issued.status !== 200) failures.push(`token ${issued.status} ${issued.text.slice(0, 200)}`);
        if (issued.status !== 200) return issued.status;
        const userinfo = await fetch(`${cluster.url}/oidc/v1/userinfo`, {
          headers: { authorization: `Bearer ${issued.json.access_token}` },
        });
        if (userinfo.status !== 200) failures.push(`userinfo ${userinfo.status} ${await userinfo.text()}`);
        else await userinfo.arrayBuffer();
        return userinfo.status;
      },
      { maxSeconds: 240 },
    );
    try {
      await sleep(1000);
      for (let i = 0; i < cluster.nodes.length; i++) {
        const node = cluster.nodes[i]!;
        const exited = node.process.exited(30_000);
        node.process.child.kill('SIGTERM');
        // the drain: /readyz turns 503 at once while requests are still served
        await until(async () => (await fetch(`${node.url}/readyz`)).status === 503, 2000, `${node.url} draining`);
        expect((await fetch(`${node.url}/oauth/v2/keys`)).status).toBe(200);
        // the balancer takes the node out before it stops listening
        await until(
          async () => (await cluster.haproxy.servers()).find((s) => s.name === `node${i + 1}`)?.status === 'DOWN',
          4500,
          `node${i + 1} DOWN at the balancer during the drain`,
        );
        expect(node.process.child.exitCode).toBe(null);
        expect(await exited).toBe(0);
        await cluster.restart(i);
      }
      await sleep(1000);
    } finally {
      await load.stop();
    }
    const served = load.records.filter((r) => r.status === 200).length;
    console.log(`rolling restart: ${load.records.length} requests, ${served} served, failures: ${failures.length}`);
    expect(failures).toEqual([]);
    expect(load.records.filter((r) => r.status !== 200)).toEqual([]);
    expect(served).toBeGreaterThan(50);
  });
});

/** Runs the CLI (`npm run cli -- …`) with env; resolves with its standard output. */
function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      err += String(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`gatehouse ${args.join(' ')} exited ${code}: ${err}`));
    });
  });
}
