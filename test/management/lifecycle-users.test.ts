// Users' whole life on the management API over REST, gRPC and gRPC-Web: ListUsers (queries, sorting, pages, only the
// org in context), the lookups, AddHumanUser, the updates (an empty one is FAILED_PRECONDITION), the state changes,
// RemoveUser and the machine users' keys and secret; bad input answered 400 naming the field.
import { expect, it } from 'vitest';
import { lifecycle } from '../helpers/lifecycle.ts';
import {
  calls,
  describeEachEncoding,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  unique,
  type ApiAnswer,
} from '../helpers/provisioning.ts';

describeEachEncoding('lifecycle: users', ({ encoding, p, call, okCall }) => {
  type List = { details: Record<string, string>; result?: ApiAnswer[]; sortingColumn?: string };

  it('ListUsers filters by user name prefix in either case, sorts, pages, counts, and stays in the org', async () => {
    const prefix = unique('Lst').replaceAll('-', '');
    const names = ['b', 'A', 'c'].map((s) => `${prefix}_${s}`);
    for (const userName of names) await okCall(lifecycle.addHumanUser({ userName }));
    // a user of the other org with the same prefix is never listed
    await okCall(lifecycle.addHumanUser({ userName: `${prefix}_other` }), p.adminToken, p.otherOrgId);
    const byPrefix = (method: string, value = prefix) => ({
      queries: [{ userNameQuery: { userName: value, method } }],
      sortingColumn: 'USER_FIELD_NAME_USER_NAME',
      query: { asc: true },
    });
    const list = await okCall<List>(lifecycle.listUsers(byPrefix('TEXT_QUERY_METHOD_STARTS_WITH')));
    expect(list.result!.map((u) => u.userName)).toEqual([`${prefix}_A`, `${prefix}_b`, `${prefix}_c`]);
    expect(list.details.totalResult).toBe('3');
    expect(list.details.processedSequence).toMatch(/^\d+$/);
    expect(list.details.viewTimestamp).toMatch(/^\d{4}-/);
    expect(list.sortingColumn).toBe('USER_FIELD_NAME_USER_NAME');
    expect(list.result![0]).toMatchObject({
      state: 'USER_STATE_ACTIVE',
      human: { profile: { firstName: 'Grace' } },
    });
    const lower = prefix.toLowerCase();
    expect((await okCall<List>(lifecycle.listUsers(byPrefix('TEXT_QUERY_METHOD_STARTS_WITH', lower)))).result).toBe(
      undefined,
    );
    const ignoreCase = await okCall<List>(
      lifecycle.listUsers(byPrefix('TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE', lower)),
    );
    expect(ignoreCase.details.totalResult).toBe('3');
    // a page: the second user, with the total of all three; descending
    const page = await okCall<List>(
      lifecycle.listUsers({
        ...byPrefix('TEXT_QUERY_METHOD_STARTS_WITH'),
        query: { offset: '1', limit: 1, asc: false },
      }),
    );
    expect(page.result!.map((u) => u.userName)).toEqual([`${prefix}_b`]);
    expect(page.details.totalResult).toBe('3');
    // past the last row the total is still counted (platform/search.ts listPage), and the log position given
    const past = await okCall<List>(
      lifecycle.listUsers({ ...byPrefix('TEXT_QUERY_METHOD_STARTS_WITH'), query: { offset: '10', limit: 1 } }),
    );
    expect(past.result ?? []).toEqual([]);
    expect(past.details).toMatchObject({ totalResult: '3', processedSequence: page.details.processedSequence });
    // the IAM_OWNER in the other org sees only that org's user
    const other = await okCall<List>(
      lifecycle.listUsers(byPrefix('TEXT_QUERY_METHOD_STARTS_WITH')),
      p.adminToken,
      p.otherOrgId,
    );
    expect(other.result!.map((u) => u.userName)).toEqual([`${prefix}_other`]);
    // LIKE metacharacters are literal: `_` does not match any character
    const underscore = await okCall<List>(
      lifecycle.listUsers({
        queries: [{ userNameQuery: { userName: `${prefix}%`, method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }],
      }),
    );
    expect(underscore.result).toBe(undefined);
  });

  it('ListUsers by e-mail, display name, state and type, or/and/not of them; limits over 1000 are 400', async () => {
    const userName = unique('mail');
    const { userId } = await okCall(
      lifecycle.addHumanUser({
        userName,
        profile: { firstName: 'Ada', lastName: 'Byron', displayName: `Countess ${userName}` },
        email: { email: `${userName}@Example.org` },
      }),
    );
    const only = async (query: Record<string, unknown>) =>
      (await okCall<List>(lifecycle.listUsers({ queries: [query] }))).result?.map((u) => u.id) ?? [];
    expect(
      await only({
        emailQuery: { emailAddress: `${userName}@example.ORG`, method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' },
      }),
    ).toEqual([userId]);
    expect(
      await only({ emailQuery: { emailAddress: `${userName}@example.ORG`, method: 'TEXT_QUERY_METHOD_EQUALS' } }),
    ).toEqual([]);
    expect(await only({ displayNameQuery: { displayName: userName, method: 'TEXT_QUERY_METHOD_CONTAINS' } })).toEqual([
      userId,
    ]);
    expect(
      await only({ loginNameQuery: { loginName: `${userName}@`, method: 'TEXT_QUERY_METHOD_STARTS_WITH' } }),
    ).toEqual([userId]);
    await okCall(lifecycle.userState(userId, 'lock'));
    const locked = await okCall<List>(
      lifecycle.listUsers({
        queries: [{ stateQuery: { state: 'USER_STATE_LOCKED' } }, { typeQuery: { type: 'TYPE_HUMAN' } }],
      }),
    );
    expect(locked.result!.map((u) => u.id)).toContain(userId);
    expect(locked.result!.every((u) => u.state === 'USER_STATE_LOCKED')).toBe(true);
    const machines = await okCall<List>(lifecycle.listUsers({ queries: [{ typeQuery: { type: 'TYPE_MACHINE' } }] }));
    expect(machines.result!.every((u) => u.machine)).toBe(true);
    expectError(
      await call(lifecycle.listUsers({ query: { limit: 1001 } })),
      encoding,
      3,
      'invalid ListUsersRequest.Query.Limit: value must be at most 1000 (given: 1001) (QUERY-4M0fs)',
    );
    // a search box's request: one text in any of several columns (ZITADEL's OrQuery), with And and Not
    const byName = { userNameQuery: { userName, method: 'TEXT_QUERY_METHOD_EQUALS' } };
    const byMail = {
      emailQuery: { emailAddress: `${userName}@EXAMPLE.org`, method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' },
    };
    const nobody = { userNameQuery: { userName: `${userName}-nobody`, method: 'TEXT_QUERY_METHOD_EQUALS' } };
    expect(await only({ orQuery: { queries: [nobody, byMail] } })).toEqual([userId]);
    expect(await only({ andQuery: { queries: [byName, { orQuery: { queries: [nobody, byMail] } }] } })).toEqual([
      userId,
    ]);
    const isLocked = { stateQuery: { state: 'USER_STATE_LOCKED' } };
    expect(await only({ andQuery: { queries: [byName, { notQuery: { query: isLocked } }] } })).toEqual([]);
    expect(await only({ orQuery: { queries: [] } })).toEqual([]);
    let deep: Record<string, unknown> = byName;
    for (let i = 0; i < 6; i++) deep = { orQuery: { queries: [deep] } };
    expectError(await call(lifecycle.listUsers({ queries: [deep] })), encoding, 3, /queries nest at most 5 deep/);
    expectError(
      await call(lifecycle.listUsers({ queries: [{ notQuery: {} }] })),
      encoding,
      3,
      /^invalid ListUsersRequest.Queries\[0\].NotQuery.Query/,
    );
  });

  it('GetUserByLoginNameGlobal and IsUserUnique; an org owner does not find users of other orgs', async () => {
    const userName = unique('global');
    const { userId } = await okCall(lifecycle.addHumanUser({ userName }), p.adminToken, p.otherOrgId);
    const found = await okCall(lifecycle.userByLoginName(userName), p.adminToken);
    expect(found.user).toMatchObject({ id: userId, userName });
    expectError(await call(lifecycle.userByLoginName(userName)), encoding, 5, 'User could not be found (QUERY-Dfbg2)');
    const mine = unique('mine');
    await okCall(lifecycle.addHumanUser({ userName: mine, email: { email: `${mine}@example.com` } }));
    expect((await okCall(lifecycle.userByLoginName(mine))).user).toMatchObject({ userName: mine });
    expect(await okCall(lifecycle.isUserUnique(mine.toUpperCase()))).toEqual({});
    expect(await okCall(lifecycle.isUserUnique(unique('free'), `${unique('free')}@example.com`))).toEqual({
      isUnique: true,
    });
    expect(await okCall(lifecycle.isUserUnique('', `${mine}@EXAMPLE.com`))).toEqual({});
  });

  it('AddHumanUser signs in with its initial password; the updates change what they name, an empty one is 400', async () => {
    const userName = unique('add');
    const added = await okCall(lifecycle.addHumanUser({ userName, phone: { phone: '+41 79 123 45 67' } }));
    expectCreatedDetails(added.details, p.firstOrgId);
    const { userId } = added;
    const user = async () =>
      (await okCall(calls.getUser(userId))).user as ApiAnswer & {
        human: { phone: unknown; email: unknown; profile: unknown };
      };
    expect((await user()).human.phone).toMatchObject({ phone: '+41 79 123 45 67' });

    const renamed = unique('renamed');
    expectChangedDetails((await okCall(lifecycle.updateUserName(userId, renamed))).details, p.firstOrgId);
    expect((await user()).userName).toBe(renamed);
    expectError(
      await call(lifecycle.updateUserName(userId, renamed)),
      encoding,
      9,
      'Username not changed (COMMAND-6m9gs)',
    );
    const taken = unique('taken');
    await okCall(lifecycle.addHumanUser({ userName: taken }));
    expectError(
      await call(lifecycle.updateUserName(userId, taken.toUpperCase())),
      encoding,
      6,
      'User already exists (COMMAND-CtQ8w)',
    );
    expectError(
      await call(lifecycle.updateUserName(userId, '1@2')),
      encoding,
      3,
      /^invalid UpdateUserNameRequest.UserName: must not have the form/,
    );

    const profile = {
      firstName: 'Grace',
      lastName: 'Murray',
      displayName: 'Amazing Grace',
      gender: 'GENDER_FEMALE',
    };
    await okCall(lifecycle.updateProfile(userId, profile));
    expect((await user()).human.profile).toMatchObject(profile);
    expectError(
      await call(lifecycle.updateProfile(userId, profile)),
      encoding,
      9,
      'Profile not changed (COMMAND-2M0fs)',
    );
    expectError(
      await call(lifecycle.updateProfile(userId, { ...profile, firstName: 'x'.repeat(201) })),
      encoding,
      3,
      'invalid UpdateHumanProfileRequest.FirstName: value length must be between 1 and 200 runes, inclusive',
    );

    await okCall(lifecycle.updateEmail(userId, { email: `${renamed}@example.net`, isEmailVerified: false }));
    expect((await user()).human.email).toEqual({ email: `${renamed}@example.net` });
    expectError(
      await call(lifecycle.updateEmail(userId, { email: `${renamed}@example.net` })),
      encoding,
      9,
      'Email not changed (COMMAND-2b7fM)',
    );
    await okCall(lifecycle.updatePhone(userId, { phone: '+1 555 0100', isPhoneVerified: true }));
    expect((await user()).human.phone).toEqual({ phone: '+1 555 0100', isPhoneVerified: true });
    expectError(
      await call(lifecycle.updatePhone(userId, { phone: '555' })),
      encoding,
      3,
      'invalid UpdateHumanPhoneRequest.Phone: value does not have prefix "+"',
    );
    // ids of another org, and unknown ids, are 404
    expectError(await call(lifecycle.updateUserName(userId, unique('x')), p.adminToken, p.otherOrgId), encoding, 5);
    expectError(await call(lifecycle.updateProfile('404404', profile)), encoding, 5);
  });

  it('Lock, Unlock, Deactivate, Reactivate and Remove follow ZITADEL preconditions; a removed name is free again', async () => {
    const userName = unique('states');
    const { userId } = await okCall(lifecycle.addHumanUser({ userName }));
    const state = async () => ((await okCall(calls.getUser(userId))).user as ApiAnswer).state;
    expectError(await call(lifecycle.userState(userId, 'unlock')), encoding, 9, 'User is not locked (COMMAND-4M0ds)');
    expectError(
      await call(lifecycle.userState(userId, 'reactivate')),
      encoding,
      9,
      'User is not inactive (COMMAND-6M0sf)',
    );
    await okCall(lifecycle.userState(userId, 'lock'));
    expect(await state()).toBe('USER_STATE_LOCKED');
    expectError(await call(lifecycle.userState(userId, 'lock')), encoding, 9, 'User should be active (COMMAND-3NN8v)');
    await okCall(lifecycle.userState(userId, 'unlock'));
    expect(await state()).toBe('USER_STATE_ACTIVE');
    await okCall(lifecycle.userState(userId, 'deactivate'));
    expect(await state()).toBe('USER_STATE_INACTIVE');
    await okCall(lifecycle.userState(userId, 'reactivate'));
    expect(await state()).toBe('USER_STATE_ACTIVE');
    expectError(await call(lifecycle.removeUser(userId), p.adminToken, p.otherOrgId), encoding, 5);
    expectChangedDetails((await okCall(lifecycle.removeUser(userId))).details, p.firstOrgId);
    expectError(await call(calls.getUser(userId)), encoding, 5);
    expectError(await call(lifecycle.removeUser(userId)), encoding, 5);
    await okCall(lifecycle.addHumanUser({ userName }));
  });

  it('UpdateMachine, ListMachineKeys, RemoveMachineKey and RemoveMachineSecret', async () => {
    const { userId } = await okCall(calls.addMachineUser({ name: 'Batch' }));
    await okCall(lifecycle.updateMachine(userId, { name: 'Nightly', description: 'nightly batch' }));
    expect((await okCall(calls.getUser(userId))).user).toMatchObject({
      machine: { name: 'Nightly', description: 'nightly batch' },
    });
    expectError(
      await call(lifecycle.updateMachine(userId, { name: 'Nightly', description: 'nightly batch' })),
      encoding,
      9,
      'User not changed (COMMAND-2n8vs)',
    );
    const key = await okCall(calls.addMachineKey(userId));
    const keys = await okCall<List>(lifecycle.listMachineKeys(userId));
    expect(keys.result!.map((k) => k.id)).toEqual([key.keyId]);
    expect(keys.result![0]).toMatchObject({ type: 'KEY_TYPE_JSON', expirationDate: expect.any(String) });
    expect(keys.details.totalResult).toBe('1');
    await okCall(lifecycle.removeMachineKey(userId, key.keyId));
    expect((await okCall<List>(lifecycle.listMachineKeys(userId))).result).toBe(undefined);
    expectError(
      await call(lifecycle.removeMachineKey(userId, key.keyId)),
      encoding,
      5,
      'Key not found (COMMAND-4m77G)',
    );
    expectError(
      await call(lifecycle.removeMachineSecret(userId)),
      encoding,
      9,
      'The user has no secret (COMMAND-coi82n)',
    );
    await okCall(calls.generateMachineSecret(userId));
    expect((await okCall(calls.getUser(userId))).user).toMatchObject({ machine: { hasSecret: true } });
    await okCall(lifecycle.removeMachineSecret(userId));
    expect((await okCall(calls.getUser(userId))).user).not.toMatchObject({ machine: { hasSecret: true } });
    expectError(await call(lifecycle.listMachineKeys(userId), p.adminToken, p.otherOrgId), encoding, 5);
  });
});
