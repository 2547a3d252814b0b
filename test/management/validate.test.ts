// The descriptor-driven validator on its own (a pure function); the operations' tests check the same rules
// through every encoding.
import { create, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { AddJWTIDPRequestSchema, SetUpOrgRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { UpdateMyProfileRequestSchema } from '@zitadel/proto/zitadel/auth_pb.js';
import type { IDPStylingType } from '@zitadel/proto/zitadel/idp_pb.js';
import type { Gender } from '@zitadel/proto/zitadel/user_pb.js';
import { describe, expect, it } from 'vitest';
import { isEmailAddress, validateMessage } from '../../src/management/validate.ts';

function violation<T extends DescMessage>(schema: T, init: MessageInitShape<T>): string | undefined {
  try {
    validateMessage(schema, create(schema, init));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const profile = { firstName: 'Ada', lastName: 'Lovelace', displayName: 'Ada L', nickName: '', preferredLanguage: 'en' };
const setUp = (over: Record<string, unknown> = {}, human: Record<string, unknown> = {}) => ({
  org: { name: 'Acme' },
  user: {
    case: 'human' as const,
    value: {
      userName: 'ada',
      profile: { firstName: 'Ada', lastName: 'L' },
      email: { email: 'ada@example.com' },
      ...human,
    },
  },
  ...over,
});

describe('validateMessage', () => {
  it('accepts 200 runes and rejects 201, counting runes, not bytes or UTF-16 units', () => {
    expect(violation(UpdateMyProfileRequestSchema, { ...profile, firstName: '😀'.repeat(200) })).toBeUndefined();
    expect(violation(UpdateMyProfileRequestSchema, { ...profile, firstName: 'a'.repeat(201) })).toBe(
      'invalid UpdateMyProfileRequest.FirstName: value length must be between 1 and 200 runes, inclusive',
    );
    expect(violation(UpdateMyProfileRequestSchema, { ...profile, displayName: '' })).toBe(
      'invalid UpdateMyProfileRequest.DisplayName: value length must be between 1 and 200 runes, inclusive',
    );
    expect(violation(UpdateMyProfileRequestSchema, { ...profile, preferredLanguage: 'a'.repeat(11) })).toBe(
      'invalid UpdateMyProfileRequest.PreferredLanguage: value length must be at most 10 runes',
    );
  });

  it('rejects enum values that are not defined, with or without a rule', () => {
    expect(violation(UpdateMyProfileRequestSchema, { ...profile, gender: 4 as Gender })).toBe(
      'invalid UpdateMyProfileRequest.Gender: value must be one of the defined enum values',
    );
    const idp = { name: 'n', jwtEndpoint: 'j', issuer: 'i', keysEndpoint: 'k', headerName: 'h' };
    expect(violation(AddJWTIDPRequestSchema, { ...idp, stylingType: 1 })).toBeUndefined();
    expect(violation(AddJWTIDPRequestSchema, { ...idp, stylingType: 2 as IDPStylingType })).toBe(
      'invalid AddJWTIDPRequest.StylingType: value must be one of the defined enum values',
    );
  });

  it('reports nested violations as PGV does, and required messages and oneofs', () => {
    expect(violation(SetUpOrgRequestSchema, setUp())).toBeUndefined();
    expect(violation(SetUpOrgRequestSchema, setUp({ org: undefined }))).toBe(
      'invalid SetUpOrgRequest.Org: value is required',
    );
    expect(violation(SetUpOrgRequestSchema, setUp({ user: { case: undefined } }))).toBe(
      'invalid SetUpOrgRequest.User: value is required',
    );
    expect(violation(SetUpOrgRequestSchema, setUp({ org: { name: '' } }))).toBe(
      'invalid SetUpOrgRequest.Org: embedded message failed validation | caused by: invalid ' +
        'SetUpOrgRequest_Org.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expect(violation(SetUpOrgRequestSchema, setUp({}, { phone: { phone: '0123' } }))).toBe(
      'invalid SetUpOrgRequest.Human: embedded message failed validation | caused by: invalid ' +
        'SetUpOrgRequest_Human.Phone: embedded message failed validation | caused by: invalid ' +
        'SetUpOrgRequest_Human_Phone.Phone: value does not have prefix "+"',
    );
    expect(violation(SetUpOrgRequestSchema, setUp({}, { phone: { phone: `+${'1'.repeat(49)}` } }))).toBeUndefined();
    expect(violation(SetUpOrgRequestSchema, setUp({}, { phone: { phone: `+${'1'.repeat(50)}` } }))).toMatch(
      /SetUpOrgRequest_Human_Phone\.Phone: value length must be between 1 and 50 runes, inclusive$/,
    );
    expect(violation(SetUpOrgRequestSchema, setUp({}, { email: { email: 'not-an-address' } }))).toMatch(
      /SetUpOrgRequest_Human_Email\.Email: value must be a valid email address$/,
    );
    expect(violation(SetUpOrgRequestSchema, setUp({}, { email: undefined }))).toMatch(
      /SetUpOrgRequest_Human\.Email: value is required$/,
    );
  });

  it('accepts RFC 5322 dot-atom addresses with a host name and nothing else', () => {
    for (const ok of ['a@b.c', 'first.last+tag@sub.example.com', "o'brien@example.org", 'x@localhost'])
      expect(isEmailAddress(ok), ok).toBe(true);
    for (const bad of [
      '',
      'a',
      '@b.c',
      'a@',
      'a@@b.c',
      'a b@c.d',
      '.a@b.c',
      'a..b@c.d',
      'a@-b.c',
      'a@b_c.d',
      'Ada <a@b.c>',
      `${'a'.repeat(65)}@b.c`,
    ]) {
      expect(isEmailAddress(bad), bad).toBe(false);
    }
  });
});
