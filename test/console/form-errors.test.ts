// The console names a refused field by its form's label and states the rule in the page's language, for the
// refusals the operations really raise (built here by the same validation and service checks), in English and German;
// a refusal it has no words for keeps the API's message with its ID.
import { create } from '@bufbuild/protobuf';
import { AddHumanUserRequestSchema } from '@zitadel/proto/zitadel/management_pb.js';
import { describe, expect, it } from 'vitest';
import { checkOidcConfig, oidcConfigSchema } from '../../src/apps/schema.ts';
import { FIELD_LABELS, formErrorText } from '../../src/console/form-errors.ts';
import { consoleTexts } from '../../src/console/texts.ts';
import { checkJwtIdpConfig } from '../../src/idps/schema.ts';
import { validateMessage } from '../../src/management/validate.ts';
import { checkMemberRoles } from '../../src/members/manage.ts';
import { AppError, constraintError, invalidArgument } from '../../src/platform/errors.ts';
import { PasswordPolicyError, passwordProblem } from '../../src/passwords/policy.ts';
import { checkUserName } from '../../src/users/user-name.ts';

const en = consoleTexts('en');
const de = consoleTexts('de');
const POLICY = { minLength: 8, hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: false };

/** The AppError `check` throws. */
async function refusal(check: () => unknown): Promise<AppError> {
  try {
    await check();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe("console form errors in the page's words", () => {
  it("names the field by the form's label and the rule in the page's language", async () => {
    const short = new PasswordPolicyError('AddHumanUserRequest.InitialPassword', passwordProblem(POLICY, 'short')!);
    expect(short.publicMessage).toBe(
      'invalid AddHumanUserRequest.InitialPassword: must be between 8 and 1024 characters (COMMA-HuJf6)',
    );
    expect(formErrorText(en, short)).toBe('Password must be between 8 and 1024 characters long.');
    expect(formErrorText(de, short)).toBe('Passwort muss zwischen 8 und 1024 Zeichen lang sein.');
    const lower = new PasswordPolicyError('SetHumanPasswordRequest.Password', passwordProblem(POLICY, 'LONGPASS1')!);
    expect(formErrorText(en, lower)).toBe('New password must contain a lower case letter.');

    // PGV's nested message: the innermost field
    const human = (init: object) =>
      refusal(() => validateMessage(AddHumanUserRequestSchema, create(AddHumanUserRequestSchema, init)));
    const noFirstName = await human({ userName: 'u', profile: { lastName: 'L' }, email: { email: 'u@example.com' } });
    expect(formErrorText(en, noFirstName)).toBe('First name must be between 1 and 200 characters long.');
    expect(formErrorText(de, noFirstName)).toBe('Vorname muss zwischen 1 und 200 Zeichen lang sein.');
    const badEmail = await human({ userName: 'u', profile: { firstName: 'F', lastName: 'L' }, email: { email: 'u@' } });
    expect(formErrorText(en, badEmail)).toBe('E-mail must be an e-mail address, such as name@example.com.');

    // SetUpOrg names its password in words of its own
    const orgPassword = invalidArgument(`Password ${passwordProblem(POLICY, 'short')!.text}`, 'COMMA-HuJf6');
    expect(formErrorText(en, orgPassword)).toBe('Password must be between 8 and 1024 characters long.');

    // a list's item: the list's field
    const uri = await refusal(() =>
      checkOidcConfig(oidcConfigSchema.parse({ redirectUris: ['callback'] }), 'AddOIDCAppRequest'),
    );
    expect(formErrorText(en, uri)).toBe(
      'Redirect URIs: “callback” is not a complete address (such as https://app.example.com/callback, without #).',
    );
    const none = await refusal(() => checkOidcConfig(oidcConfigSchema.parse({}), 'UpdateOIDCAppConfigRequest'));
    expect(formErrorText(de, none)).toBe('Weiterleitungs-URIs ist ein Pflichtfeld.');

    const endpoint = await refusal(() =>
      checkJwtIdpConfig(
        { jwtEndpoint: 'http://idp.example.com/jwt', keysEndpoint: 'https://idp.example.com/keys' },
        'AddJWTIDPRequest',
      ),
    );
    expect(formErrorText(en, endpoint)).toBe(
      'JWT endpoint must be an https address (http only on this machine: localhost or 127.0.0.1).',
    );
    const roles = await refusal(() => checkMemberRoles('project', [], 'AddProjectMemberRequest'));
    expect(formErrorText(en, roles)).toBe('Roles: choose at least one.');
    // the client ID's form is refused before any lookup
    const userName = await refusal(() => checkUserName(undefined as never, '1@2', 'AddMachineUserRequest.UserName'));
    expect(formErrorText(en, userName)).toBe('User name must not look like an app’s client ID (digits@digits).');
    const count = invalidArgument('invalid UpdateLockoutPolicyRequest.MaxOtpAttempts: value must be between 1 and 100');
    expect(formErrorText(de, count)).toBe(
      'Höchstzahl falscher Codes des zweiten Faktors muss eine Zahl von 1 bis 100 sein.',
    );
  });

  it('gives the everyday refusals of a whole form words of their own, and keeps the message of any other', () => {
    expect(formErrorText(en, constraintError('projects_name_unique'))).toBe('A project with this name exists already.');
    expect(formErrorText(de, constraintError('users_user_name_unique'))).toBe(
      'Dieser Benutzername ist bereits vergeben.',
    );
    const last = new AppError(9, 'The last IAM_OWNER cannot be removed or demoted', 'IAM-L4stOw');
    expect(formErrorText(en, last)).toBe('The last IAM_OWNER cannot be removed or demoted (IAM-L4stOw)');
    const elsewhere = invalidArgument('invalid ListUsersRequest.Query.Limit: value must be at most 1000');
    expect(formErrorText(en, elsewhere)).toBe(elsewhere.publicMessage);
    // a known field with a rule the console has no words for: the field named, the rule as the API states it
    const odd = invalidArgument('invalid AddProjectRequest.Name: something new');
    expect(formErrorText(en, odd)).toBe('Name is not accepted: something new.');
  });

  it('labels every field with a text of both languages', () => {
    for (const label of Object.values(FIELD_LABELS)) {
      expect(en[label], label).toBeTruthy();
      expect(de[label], label).toBeTruthy();
    }
  });
});
