// AddMachineUser, AddMachineKey, GenerateMachineSecret, ImportHumanUser, GetUserByID, DeactivateUser and
// AddIAMMember on REST, gRPC and gRPC-Web: shapes, org scoping, permissions, validation, unknown ids.
import { createPublicKey } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  calls,
  describeEachEncoding,
  decodeKeyDetails,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  ok,
  unique,
} from '../helpers/provisioning.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';

describeEachEncoding('provisioning: users and members', ({ encoding, p, call }) => {
  const db = () => p.server.db;

  it('AddMachineUser creates a machine user in the org in context; GetUserByID reads it', async () => {
    const body = {
      userName: unique('svc'),
      name: 'Billing',
      description: 'billing jobs',
      accessTokenType: 'ACCESS_TOKEN_TYPE_JWT',
    };
    const added = await ok(p.server, encoding, calls.addMachineUser(body), p.adminToken, p.otherOrgId);
    expect(Object.keys(added).sort()).toEqual(['details', 'userId']);
    expectCreatedDetails(added.details, p.otherOrgId);
    const read = await ok(p.server, encoding, calls.getUser(added.userId), p.adminToken, p.otherOrgId);
    expect(read.user).toMatchObject({
      id: added.userId,
      state: 'USER_STATE_ACTIVE',
      userName: body.userName,
      machine: { name: 'Billing', description: 'billing jobs', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' },
    });
    expect(read.user.preferredLoginName).toMatch(new RegExp(`^${body.userName}@`));
    expectError(
      await call(calls.addMachineUser({ userName: body.userName }), p.adminToken, p.otherOrgId),
      encoding,
      6,
      'User already exists (COMMAND-CtQ8w)',
    );
    expectError(
      await call(calls.addMachineUser({ name: '' }), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddMachineUserRequest.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(
      await call(calls.addMachineUser({ userName: 'u'.repeat(201) }), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddMachineUserRequest.UserName: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(
      await call(calls.addMachineUser(), p.orgOwnerToken, p.otherOrgId),
      encoding,
      7,
      'No matching permissions found (AUTH-5mWD2)',
    );
  });

  it('AddMachineKey returns the service account key file, usable for the JWT-profile grant; only the public key is stored', async () => {
    const { userId } = await ok(p.server, encoding, calls.addMachineUser(), p.orgOwnerToken);
    const key = await ok(p.server, encoding, calls.addMachineKey(userId), p.orgOwnerToken);
    expect(Object.keys(key).sort()).toEqual(['details', 'keyDetails', 'keyId']);
    expectCreatedDetails(key.details, p.firstOrgId);
    const file = decodeKeyDetails(key.keyDetails);
    expect(file).toMatchObject({ type: 'serviceaccount', keyId: key.keyId, userId });
    const stored = (
      await db().query<{ public_jwk: { d?: string; n?: string } }>(
        'SELECT public_jwk FROM machine_keys WHERE id = $1',
        [key.keyId],
      )
    ).rows[0]!.public_jwk;
    expect(stored.d).toBeUndefined();
    expect(stored.n).toBe(createPublicKey(file.key!).export({ format: 'jwk' }).n);
    expect(await jwtProfileToken(p.server, file as never, 'openid')).toBeTruthy();
    expectError(
      await call(calls.addMachineKey(userId, { type: 0 }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid AddMachineKeyRequest\.Type: /,
    );
    expectError(await call(calls.addMachineKey('404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.addMachineKey(userId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
    expectError(await call(calls.addMachineKey(userId), p.adminToken, p.otherOrgId), encoding, 5);
  });

  it('GenerateMachineSecret returns the user name as client id and a new secret; the previous one stops working', async () => {
    const body = { userName: unique('svc') };
    const { userId } = await ok(p.server, encoding, calls.addMachineUser(body), p.orgOwnerToken);
    const first = await ok(p.server, encoding, calls.generateMachineSecret(userId), p.orgOwnerToken);
    expect(Object.keys(first).sort()).toEqual(['clientId', 'clientSecret', 'details']);
    expect(first.clientId).toBe(body.userName);
    expectChangedDetails(first.details, p.firstOrgId);
    const second = await ok(p.server, encoding, calls.generateMachineSecret(userId), p.orgOwnerToken);
    expect(second.clientSecret).not.toBe(first.clientSecret);
    const stored = (await db().query('SELECT secret_hash FROM users WHERE id = $1', [userId])).rows[0]!
      .secret_hash as string;
    expect(stored).not.toContain(second.clientSecret);
    const human = await ok(p.server, encoding, calls.importHumanUser(), p.orgOwnerToken);
    expectError(await call(calls.generateMachineSecret(human.userId), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.generateMachineSecret('404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.generateMachineSecret(userId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('ImportHumanUser stores an argon2id password and the verified flags; GetUserByID shows the human', async () => {
    const c = calls.importHumanUser({ phone: { phone: '+41791234567', isPhoneVerified: true } });
    const added = await ok(p.server, encoding, c, p.orgOwnerToken);
    expect(Object.keys(added).sort()).toEqual(['details', 'userId']);
    expectCreatedDetails(added.details, p.firstOrgId);
    const row = (
      await db().query('SELECT password_hash, email_verified, phone_verified, display_name FROM users WHERE id = $1', [
        added.userId,
      ])
    ).rows[0]!;
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row).toMatchObject({ email_verified: true, phone_verified: true, display_name: 'Ada Lovelace' });
    expect(p.server.logs.join('')).not.toContain('Imported-Password-1');
    const read = await ok(p.server, encoding, calls.getUser(added.userId), p.orgOwnerToken);
    const body = c.body as { userName: string; email: { email: string } };
    expect(read.user).toMatchObject({
      id: added.userId,
      userName: body.userName,
      state: 'USER_STATE_ACTIVE',
      human: {
        profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Ada Lovelace', gender: 'GENDER_FEMALE' },
        email: { email: body.email.email, isEmailVerified: true },
        phone: { phone: '+41791234567', isPhoneVerified: true },
      },
    });
    const noPassword = await ok(p.server, encoding, calls.importHumanUser({ password: '' }), p.orgOwnerToken);
    expect(
      (await db().query('SELECT password_hash FROM users WHERE id = $1', [noPassword.userId])).rows[0]!.password_hash,
    ).toBeNull();
  });

  it('ImportHumanUser validation: required profile and e-mail, lengths, phone prefix, password length, duplicates, unsupported options', async () => {
    const embedded = 'embedded message failed validation | caused by: ';
    expectError(
      await call(calls.importHumanUser({ profile: undefined }), p.orgOwnerToken),
      encoding,
      3,
      'invalid ImportHumanUserRequest.Profile: value is required',
    );
    expectError(
      await call(calls.importHumanUser({ email: undefined }), p.orgOwnerToken),
      encoding,
      3,
      'invalid ImportHumanUserRequest.Email: value is required',
    );
    expectError(
      await call(calls.importHumanUser({ profile: { firstName: '', lastName: 'L' } }), p.orgOwnerToken),
      encoding,
      3,
      `invalid ImportHumanUserRequest.Profile: ${embedded}invalid ImportHumanUserRequest_Profile.FirstName: ` +
        `value length must be between 1 and 200 runes, inclusive`,
    );
    expectError(
      await call(calls.importHumanUser({ email: { email: 'nope' } }), p.orgOwnerToken),
      encoding,
      3,
      /ImportHumanUserRequest_Email\.Email: value must be a valid email address$/,
    );
    expectError(
      await call(calls.importHumanUser({ phone: { phone: '0791234567' } }), p.orgOwnerToken),
      encoding,
      3,
      /ImportHumanUserRequest_Phone\.Phone: value does not have prefix "\+"$/,
    );
    expectError(
      await call(calls.importHumanUser({ password: 'short' }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid ImportHumanUserRequest\.Password: /,
    );
    expectError(
      await call(calls.importHumanUser({ hashedPassword: { value: '$2a$10$abc' } }), p.orgOwnerToken),
      encoding,
      3,
      /HashedPassword: not supported/,
    );
    const c = calls.importHumanUser();
    await ok(p.server, encoding, c, p.orgOwnerToken);
    expectError(
      await call({ ...c, body: { ...c.body, email: { email: 'x@example.com' } } }, p.orgOwnerToken),
      encoding,
      6,
      'User already exists (COMMAND-CtQ8w)',
    );
    expectError(await call(calls.importHumanUser(), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it("GetUserByID: 404 for unknown ids and users of another org; 403 for another org's owner", async () => {
    const { userId } = await ok(p.server, encoding, calls.addMachineUser(), p.adminToken, p.otherOrgId);
    expectError(
      await call(calls.getUser('404404'), p.orgOwnerToken),
      encoding,
      5,
      'User could not be found (QUERY-Dfbg2)',
    );
    expectError(await call(calls.getUser(userId), p.adminToken), encoding, 5, 'User could not be found (QUERY-Dfbg2)');
    expectError(await call(calls.getUser(userId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('DeactivateUser: changed Details, state inactive, a second call 400, 404, 403', async () => {
    const { userId } = await ok(p.server, encoding, calls.importHumanUser(), p.orgOwnerToken);
    const done = await ok(p.server, encoding, calls.deactivateUser(userId), p.orgOwnerToken);
    expect(Object.keys(done)).toEqual(['details']);
    expectChangedDetails(done.details, p.firstOrgId);
    expect((await ok(p.server, encoding, calls.getUser(userId), p.orgOwnerToken)).user.state).toBe(
      'USER_STATE_INACTIVE',
    );
    expectError(
      await call(calls.deactivateUser(userId), p.orgOwnerToken),
      encoding,
      9,
      'User is already inactive (COMMAND-5M0sf)',
    );
    expectError(await call(calls.deactivateUser('404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.deactivateUser(userId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('AddIAMMember grants instance roles (IAM_OWNER only); 409 for an existing member; 400 for org roles; 404', async () => {
    const { userId } = await ok(p.server, encoding, calls.addMachineUser(), p.adminToken, p.otherOrgId);
    const added = await ok(p.server, encoding, calls.addIamMember(userId, ['IAM_OWNER_VIEWER']), p.adminToken);
    expect(Object.keys(added)).toEqual(['details']);
    const instanceId = (await db().query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
    expectCreatedDetails(added.details, instanceId);
    expect(
      (await db().query("SELECT roles FROM memberships WHERE user_id = $1 AND resource_type = 'instance'", [userId]))
        .rows[0]!.roles,
    ).toEqual(['IAM_OWNER_VIEWER']);
    expectError(
      await call(calls.addIamMember(userId), p.adminToken),
      encoding,
      6,
      'Member already exists (INSTA-pFDwe)',
    );
    expectError(
      await call(calls.addIamMember(userId, ['ORG_OWNER']), p.adminToken),
      encoding,
      3,
      'invalid AddIAMMemberRequest.Roles: unknown role "ORG_OWNER" (IAM-4m9Fs)',
    );
    expectError(await call(calls.addIamMember(userId, []), p.adminToken), encoding, 3, /Roles/);
    expectError(
      await call(calls.addIamMember('', ['IAM_OWNER']), p.adminToken),
      encoding,
      3,
      'invalid AddIAMMemberRequest.UserId: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(
      await call(calls.addIamMember('404404'), p.adminToken),
      encoding,
      9,
      'User could not be found (INSTA-GSXOn)',
    );
    expectError(
      await call(calls.addIamMember(userId), p.orgOwnerToken),
      encoding,
      7,
      'No matching permissions found (AUTH-5mWD2)',
    );
  });
});
