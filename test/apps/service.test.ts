// The application model's service functions: one transaction with an event each, Details back, secrets returned once
// and stored as keyed hashes, and bad input refused with the field named and nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createProject, defaultOrgId, secrets } from '../helpers/oidc.ts';
import { addProject } from '../../src/projects/service.ts';
import { addApiApp, addAppKey, addOidcApp, updateOidcAppConfig } from '../../src/apps/service.ts';
import { addMachineUser, generateMachineSecret } from '../../src/users/machine-service.ts';
import { AppError } from '../../src/platform/errors.ts';

describe('application model', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  const count = async (table: string) =>
    (await server.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n as number;

  it('addProject and addOidcApp write their rows and an event each and return Details', async () => {
    const orgId = await defaultOrgId(server);
    const project = await addProject(server.db, { orgId, name: 'Shop' }, 'tester');
    expect(project.details).toMatchObject({
      resourceOwner: orgId,
      sequence: expect.stringMatching(/^\d+$/),
      creationDate: expect.any(Date),
    });
    const app = await addOidcApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      { projectId: project.projectId, name: 'Web', redirectUris: ['https://shop.example.com/cb'] },
      'tester',
    );
    expect(app.clientId).toContain('@');
    expect(app.clientSecret).toMatch(/^[\w-]{43}$/);
    const row = (await server.db.query<{ secret_hash: string }>('SELECT * FROM apps WHERE id = $1', [app.appId]))
      .rows[0]!;
    expect(row).toMatchObject({
      auth_method: 'basic',
      response_types: ['code'],
      grant_types: ['authorization_code'],
      sequence: app.details.sequence,
    });
    expect(secrets.verifySecret(app.clientSecret!, row.secret_hash)).toBe(true);
    const events = (
      await server.db.query('SELECT event_type, payload FROM events WHERE sequence >= $1 ORDER BY sequence', [
        project.details.sequence,
      ])
    ).rows;
    expect(events.map((e) => e.event_type)).toEqual(['project.added', 'project.application.added']);
    expect(JSON.stringify(events)).not.toContain(app.clientSecret);
    await expect(addProject(server.db, { orgId, name: 'shop' }, 'tester')).rejects.toMatchObject({ code: 6 });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const projectId = await createProject(server);
    const before = [await count('apps'), await count('events')];
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: '' }, /AddOIDCAppRequest\.Name/],
      [{ redirectUris: [] }, /RedirectUris/],
      [{ redirectUris: ['https://shop.example.com/cb#frag'] }, /RedirectUris/],
      [{ responseTypes: ['token'] }, /ResponseTypes/],
      [{ responseTypes: ['id_token'], grantTypes: ['authorization_code'] }, /GrantTypes/],
      [{ authMethod: 'client_secret_jwt' }, /AuthMethod/],
    ];
    for (const [override, message] of bad) {
      const attempt = addOidcApp(
        server.db,
        secrets,
        await defaultOrgId(server),
        { projectId, name: 'x', redirectUris: ['https://shop.example.com/cb'], ...override } as never,
        'tester',
      );
      await expect(attempt).rejects.toBeInstanceOf(AppError);
      await expect(attempt).rejects.toMatchObject({ code: 3, message });
    }
    await expect(
      addOidcApp(
        server.db,
        secrets,
        await defaultOrgId(server),
        { projectId: 'missing', name: 'x', redirectUris: ['https://a.example.com/'] },
        'tester',
      ),
    ).rejects.toMatchObject({ code: 5 });
    expect([await count('apps'), await count('events')]).toEqual(before);
  });

  it('native apps may use loopback http; dev mode allows http', async () => {
    const projectId = await createProject(server);
    await addOidcApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      { projectId, name: 'cli', appType: 'native', authMethod: 'none', redirectUris: ['http://127.0.0.1:7777/cb'] },
      'tester',
    );
    const dev = await addOidcApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      { projectId, name: 'dev', devMode: true, redirectUris: ['http://dev.example.com/cb'] },
      'tester',
    );
    expect(dev.complianceProblems).toEqual([]);
    // outside dev mode an http redirect URI is saved but reported, as ZITADEL does; it is never matched
    const web = await addOidcApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      { projectId, name: 'web', redirectUris: ['http://shop.example.com/cb'] },
      'tester',
    );
    expect(web.complianceProblems).toEqual([
      'Application.OIDC.V1.NotCompliant',
      'Application.OIDC.V1.Code.RedirectUris.HttpOnlyForDevMode',
    ]);
  });

  it('updateOidcAppConfig, addApiApp, addAppKey, addMachineUser and generateMachineSecret', async () => {
    const projectId = await createProject(server);
    const app = await addOidcApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      {
        projectId,
        name: 'spa',
        authMethod: 'none',
        appType: 'user_agent',
        redirectUris: ['https://spa.example.com/cb'],
      },
      'tester',
    );
    expect(app.clientSecret).toBeUndefined();
    const updated = await updateOidcAppConfig(
      server.db,
      secrets,
      { orgId: await defaultOrgId(server), projectId, appId: app.appId },
      { authMethod: 'post', redirectUris: ['https://spa.example.com/cb2'], accessTokenType: 'jwt' },
      'tester',
    );
    expect(updated.clientSecret).toEqual(expect.any(String));
    expect(updated.details.changeDate).toEqual(expect.any(Date));
    expect(
      (await server.db.query('SELECT redirect_uris, access_token_type FROM apps WHERE id = $1', [app.appId])).rows[0],
    ).toEqual({ redirect_uris: ['https://spa.example.com/cb2'], access_token_type: 'jwt' });
    await expect(
      addAppKey(server.db, { orgId: await defaultOrgId(server), projectId, appId: app.appId }, undefined, 'tester'),
    ).rejects.toMatchObject({ code: 9, id: 'COMMAND-Dff54' }); // not private_key_jwt: ZITADEL's FAILED_PRECONDITION

    const api = await addApiApp(
      server.db,
      secrets,
      await defaultOrgId(server),
      { projectId, name: 'api', authMethod: 'private_key_jwt' },
      'tester',
    );
    const key = await addAppKey(
      server.db,
      { orgId: await defaultOrgId(server), projectId, appId: api.appId },
      undefined,
      'tester',
    );
    expect(key.keyFile).toMatchObject({
      type: 'application',
      appId: api.appId,
      clientId: api.clientId,
      key: expect.stringContaining('PRIVATE KEY'),
    });
    expect(
      JSON.stringify((await server.db.query('SELECT public_jwk FROM app_keys WHERE id = $1', [key.keyId])).rows),
    ).not.toContain('"d"');

    const machine = await addMachineUser(
      server.db,
      { orgId: await defaultOrgId(server), userName: 'svc-billing', name: 'Billing' },
      'tester',
    );
    const first = await generateMachineSecret(
      server.db,
      secrets,
      { orgId: await defaultOrgId(server), userId: machine.userId },
      'tester',
    );
    const second = await generateMachineSecret(
      server.db,
      secrets,
      { orgId: await defaultOrgId(server), userId: machine.userId },
      'tester',
    );
    expect(first.clientId).toBe('svc-billing');
    const stored = (
      await server.db.query<{ secret_hash: string }>('SELECT secret_hash FROM users WHERE id = $1', [machine.userId])
    ).rows[0]!.secret_hash;
    expect([
      secrets.verifySecret(first.clientSecret, stored),
      secrets.verifySecret(second.clientSecret, stored),
    ]).toEqual([false, true]);
    await expect(
      addMachineUser(
        server.db,
        { orgId: await defaultOrgId(server), userName: 'svc-billing', name: 'Again' },
        'tester',
      ),
    ).rejects.toMatchObject({ code: 6 });
    await expect(
      addMachineUser(server.db, { orgId: await defaultOrgId(server), userName: '', name: 'x' }, 'tester'),
    ).rejects.toMatchObject({ code: 3, message: /UserName/ });
  });
});
