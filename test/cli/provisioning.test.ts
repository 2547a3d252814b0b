// The operator CLI: every provisioning command with its output checked, exit codes 0/1/2 and --help; then the server,
// started on the same database, signs in the user the CLI imported to the app the CLI created.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthy, statuses, type DoctorCheck } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ADMIN_PASSWORD, freePort, startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';
import { createOrg, openIdClientSignIn, rpConfig } from '../helpers/oidc.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';
import { addProject } from '../../src/projects/service.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const REDIRECT = 'https://rp.example.com/cli-callback';

describe('gatehouse provisioning commands', () => {
  let database: TestDatabase;
  let port: number;
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY,
    GATEHOUSE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    GATEHOUSE_ISSUER: `http://127.0.0.1:${port}`,
    ...database.env,
    ...extra,
  });
  const run = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    spawnSync(process.execPath, [CLI, ...args], {
      env: env(options.env),
      input: options.input ?? '',
      encoding: 'utf8',
      timeout: 60_000,
    });
  // while the server runs in this process, the CLI must not block its event loop (the doctor fetches the issuer)
  const runAsync = async (args: string[], extra: Record<string, string> = {}) => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: env(extra),
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  };
  const json = (result: { status: number | null; stdout: string; stderr: string }) => {
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };

  let app: { projectId: string; appId: string; clientId: string; clientSecret: string };
  let keyFile: { type: string; keyId: string; key: string; userId: string };
  let otherOrg: { orgId: string; projectId: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    port = await freePort();
  });
  afterAll(async () => database?.drop());

  it('app create: a new project and OIDC app on a fresh database; prints client id and the secret once', () => {
    app = json(
      run([
        'app',
        'create',
        '--project',
        'CLI Demo',
        '--name',
        'web',
        '--redirect-uri',
        REDIRECT,
        '--grant-type',
        'authorization_code',
        '--grant-type',
        'refresh_token',
      ]),
    );
    expect(Object.keys(app).sort()).toEqual(['appId', 'clientId', 'clientSecret', 'complianceProblems', 'projectId']);
    expect(app.clientId).toBe(`${app.appId}@${app.projectId}`);
    expect(app.clientSecret.length).toBeGreaterThanOrEqual(32);
    expect((app as unknown as { complianceProblems: string[] }).complianceProblems).toEqual([]);

    const second = json(
      run([
        'app',
        'create',
        '--project-id',
        app.projectId,
        '--name',
        'spa',
        '--type',
        'user_agent',
        '--auth-method',
        'none',
        '--redirect-uri',
        'http://localhost:5173/cb',
        '--dev-mode',
      ]),
    );
    expect(second.projectId).toBe(app.projectId);
    expect(second.clientSecret).toBe('');
    const table = run([
      'app',
      'create',
      '--project',
      'CLI Table',
      '--name',
      'web',
      '--redirect-uri',
      'https://rp.example.com/cb',
      '--type',
      'user_agent',
      '--auth-method',
      'basic',
      '--output',
      'table',
    ]);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^projectId\s+\d+\n/);
    expect(table.stdout).toMatch(/complianceProblems\s+\["Application\.OIDC\.V1\.NotCompliant",/);
  });

  it('app create: an http redirect URI needs --dev-mode (exit code 2, nothing made); native loopback is fine', () => {
    const http = run(['app', 'create', '--project', 'CLI Http', '--name', 'web', '--redirect-uri', 'http://rp/cb']);
    expect(http.status).toBe(2);
    expect(http.stdout).toBe('');
    expect(http.stderr).toBe(
      'gatehouse app create: --redirect-uri http://rp/cb is an http URI, which sign-in accepts only in development ' +
        'mode: add --dev-mode (for development), or use https\n',
    );
    const logout = ['--redirect-uri', REDIRECT, '--post-logout-redirect-uri', 'http://rp/bye'];
    expect(run(['app', 'create', '--project', 'CLI Http', '--name', 'web', ...logout]).stderr).toMatch(
      /--post-logout-redirect-uri http:\/\/rp\/bye is an http URI/,
    );
    const native = json(
      run([
        'app',
        'create',
        '--project',
        'CLI Http',
        '--name',
        'cli',
        '--type',
        'native',
        '--redirect-uri',
        'http://127.0.0.1:7000/cb',
      ]),
    );
    expect(native).toMatchObject({ clientSecret: '', complianceProblems: [] });
  });

  it('app create: bad input is exit code 2 with the field named, and leaves nothing behind', () => {
    const bad = run(['app', 'create', '--project', 'Never', '--name', 'web', '--redirect-uri', 'not a uri']);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(
      /^gatehouse app create: invalid AddOIDCAppRequest\.RedirectUris: "not a uri" is not an absolute URI/,
    );
    const both = run([
      'app',
      'create',
      '--project',
      'A',
      '--project-id',
      '1',
      '--name',
      'x',
      '--redirect-uri',
      REDIRECT,
    ]);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --project NAME or --project-id ID/);
    expect(run(['app', 'create', '--project', 'A', '--redirect-uri', REDIRECT]).stderr).toMatch(/--name is required/);
    expect(run(['app', 'create', '--bogus']).status).toBe(2);
    const missing = run(['app', 'create', '--project-id', '404404', '--name', 'x', '--redirect-uri', REDIRECT]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/Project not found/);
    // the failed "Never" project was not created: a second attempt with a good URI may use the name
    expect(
      json(run(['app', 'create', '--project', 'Never', '--name', 'web', '--redirect-uri', REDIRECT])).projectId,
    ).toMatch(/^\d+$/);
  });

  it('user import: a human with a password read from standard input; duplicates fail with exit code 1', () => {
    const args = [
      'user',
      'import',
      '--username',
      'carol',
      '--email',
      'carol@example.com',
      '--email-verified',
      '--first-name',
      'Carol',
      '--last-name',
      'Shaw',
      '--password-stdin',
    ];
    const user = json(run(args, { input: 'Carol-Password-1\n' }));
    expect(user).toEqual({
      userId: expect.stringMatching(/^\d+$/),
      userName: 'carol',
      loginName: expect.stringMatching(/^carol@/),
      orgId: expect.stringMatching(/^\d+$/),
    });
    const again = run(args, { input: 'Carol-Password-1\n' });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/User already exists \(COMMAND-CtQ8w\)/);
    const short = run([...args.slice(0, 3), 'dave', ...args.slice(4)], { input: 'short\n' });
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/Password: must be between 8 and 1024 characters/);
    expect(
      run(['user', 'import', '--username', 'erin', '--email', 'not-an-email', '--first-name', 'E', '--last-name', 'F'])
        .stderr,
    ).toMatch(/--email must be an e-mail address/);
    // the management API's field rules (PGV) hold for the CLI too
    const long = run(
      args.map((arg) => ({ carol: 'frank', Carol: 'F'.repeat(201) })[arg] ?? arg),
      { input: 'Frank-Password-1\n' },
    );
    expect(long.status).toBe(2);
    expect(long.stderr).toMatch(/FirstName: value length must be between 1 and 200 runes, inclusive/);
    // a user name that would be read as a login name of the instance's orgs (login-name shadowing)
    const shadowing = run([...args.slice(0, 3), 'carol@127.0.0.1', ...args.slice(4)], { input: 'Carol-Password-1\n' });
    expect(shadowing.status).toBe(2);
    expect(shadowing.stderr).toMatch(/UserName: must not end with @ and an organization's or the instance's domain/);
  });

  it('admin create: an IAM_OWNER human; a password is required', () => {
    const admin = json(
      run(
        [
          'admin',
          'create',
          '--username',
          'root2',
          '--email',
          'root2@example.com',
          '--first-name',
          'Root',
          '--last-name',
          'Two',
          '--password-stdin',
          '--output',
          'json',
        ],
        { input: 'Root-Password-2\n' },
      ),
    );
    expect(admin).toMatchObject({ userName: 'root2', roles: ['IAM_OWNER'] });
    const none = run([
      'admin',
      'create',
      '--username',
      'root3',
      '--email',
      'root3@example.com',
      '--first-name',
      'Root',
      '--last-name',
      'Three',
    ]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/needs a password/);
  });

  it('service-user create: prints the key file; with --secret a client id (the user name) and secret', () => {
    keyFile = json(run(['service-user', 'create', '--username', 'cli-bot', '--name', 'CLI bot']));
    expect(keyFile).toMatchObject({
      type: 'serviceaccount',
      keyId: expect.stringMatching(/^\d+$/),
      userId: expect.stringMatching(/^\d+$/),
    });
    expect(keyFile.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const secret = json(run(['service-user', 'create', '--username', 'cli-secret-bot', '--secret']));
    expect(secret).toEqual({
      userId: expect.stringMatching(/^\d+$/),
      clientId: 'cli-secret-bot',
      clientSecret: expect.any(String),
    });
    expect(run(['service-user', 'create', '--username', 'x', '--access-token-type', 'paper']).status).toBe(2);
    // a user name of the form of an app's client ID (client impersonation)
    const impersonating = run(['service-user', 'create', '--username', app.clientId, '--secret']);
    expect(impersonating.status).toBe(2);
    expect(impersonating.stderr).toMatch(/UserName: must not have the form of an app's client ID/);
  });

  it('--help on every command, exit code 0', () => {
    for (const command of [
      ['migrate'],
      ['keys', 'rotate'],
      ['keys', 'list'],
      ['admin', 'create'],
      ['admin', 'token'],
      ['app', 'create'],
      ['project', 'list'],
      ['service-user', 'create'],
      ['user', 'import'],
      ['doctor'],
    ]) {
      const help = run([...command, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain(`Usage: gatehouse ${command.join(' ')}`);
    }
    const overview = run(['--help']);
    expect(overview.stdout).toMatch(/service-user create\s+create a machine user/);
    expect(run([]).status).toBe(2);
  });

  describe('with the server started on the same database', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({
        database,
        env: { PORT: String(port), GATEHOUSE_ISSUER: `http://127.0.0.1:${port}` },
      });
      // a project of another org, for the org check of app create below
      const orgId = await createOrg(server, 'CLI Other Org');
      otherOrg = { orgId, ...(await addProject(server.db, { orgId, name: 'Other' }, 'test')) };
    });
    afterAll(async () => server?.close());

    it('the CLI-imported user signs in to the CLI-created app (openid-client); the CLI key file gets a token', async () => {
      const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret));
      const tokens = await openIdClientSignIn(server, config, {
        redirectUri: REDIRECT,
        scope: 'openid profile',
        loginName: 'carol',
        password: 'Carol-Password-1',
      });
      const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      expect(info).toMatchObject({
        preferred_username: expect.stringMatching(/^carol@/),
        given_name: 'Carol',
        family_name: 'Shaw',
      });
      expect(await jwtProfileToken(server, keyFile, 'openid')).toBeTruthy();
      const events = (await server.db.query("SELECT count(*)::int AS n FROM events WHERE creator = 'CLI'")).rows[0]!.n;
      expect(events).toBeGreaterThanOrEqual(8);
    });

    it('doctor passes every check while the server runs; keys rotate and keys list reach the running database', async () => {
      const checks = json(await runAsync(['doctor']));
      expect(statuses(checks)).toEqual(healthy('ok'));
      const rotated = json(await runAsync(['keys', 'rotate'], { GATEHOUSE_KEY_ACTIVATION_DELAY: '3600' }));
      const listed = json(await runAsync(['keys', 'list']));
      expect(listed[0]).toMatchObject({ kid: rotated.kid, status: 'next', alg: 'RS256' });
      expect(listed.filter((k: { status: string }) => k.status === 'signing')).toHaveLength(1);
      expect(JSON.stringify(listed)).not.toMatch(/"d"|PRIVATE/);
    });
  });

  describe('after the server stopped', () => {
    it('app create --project-id: a project of another org is not found, and found with that --org', () => {
      const args = ['app', 'create', '--project-id', otherOrg.projectId, '--name', 'x', '--redirect-uri', REDIRECT];
      const other = run(args);
      expect(other.status).toBe(1);
      expect(other.stderr).toMatch(/Project not found \(PROJECT-ggr9s\)/);
      expect(json(run([...args, '--org', otherOrg.orgId])).projectId).toBe(otherOrg.projectId);
    });

    it('keys rotate and keys list (JSON and table)', () => {
      const rotated = json(run(['keys', 'rotate'], { env: { GATEHOUSE_KEY_ACTIVATION_DELAY: '7200' } }));
      expect(rotated).toEqual({ kid: expect.stringMatching(/^\d+$/), activatesAt: expect.any(String) });
      expect(new Date(rotated.activatesAt).getTime()).toBeGreaterThan(Date.now() + 7000_000);
      const listed = json(run(['keys', 'list']));
      expect(listed[0]).toEqual({
        kid: rotated.kid,
        alg: 'RS256',
        status: 'next',
        createdAt: expect.any(String),
        activatesAt: rotated.activatesAt,
      });
      expect(listed.filter((k: { status: string }) => k.status === 'signing')).toHaveLength(1);
      const table = run(['keys', 'list', '--output', 'table']);
      expect(table.stdout.split('\n')[0]).toMatch(/^kid\s+alg\s+status\s+createdAt\s+activatesAt$/);
      expect(table.stdout).toContain(`${rotated.kid}  RS256  next`);
    });

    it('doctor: a stopped server is information (exit code 0); a wrong master key fails (exit code 1)', () => {
      const down = run(['doctor']);
      expect(down.status).toBe(0);
      const checks = JSON.parse(down.stdout) as DoctorCheck[];
      expect(statuses(checks)).toEqual(healthy('info'));
      expect(checks.at(-1)!.detail).toMatch(/^server not running: nothing listens at /);
      const wrongKey = run(['doctor'], { env: { GATEHOUSE_MASTER_KEY: 'another-master-key-0123456789abcdef0123' } });
      expect(wrongKey.status).toBe(1);
      const wrongChecks = JSON.parse(wrongKey.stdout) as { check: string; status: string }[];
      expect(wrongChecks.find((c) => c.check === 'signing keys')!.status).toBe('fail');
      const unresolvable = run(['doctor'], { env: { GATEHOUSE_ISSUER: 'http://gatehouse.invalid' } });
      expect(unresolvable.status).toBe(1);
      expect(JSON.parse(unresolvable.stdout).at(-1)).toMatchObject({ check: 'issuer', status: 'fail' });
      const table = run(['doctor', '--output', 'table']);
      expect(table.stdout).toMatch(/^check\s+status\s+detail\n/);
      expect(table.stdout).toMatch(
        /\nissuer\s+info\s+server not running: nothing listens at http:\/\/127\.0\.0\.1:\d+\/\.well-known\//,
      );
    });
  });
});
