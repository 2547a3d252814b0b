// The API's refusal of a console form, in the page's words. The operations name a bad value the way ZITADEL's API
// does, for developers: "invalid AddHumanUserRequest.InitialPassword: must be between 8 and 1024 characters
// (COMMA-HuJf6)". The console names the field by the label the form shows it with (FIELD_LABELS: the operation's
// field path to the label's text) and the rule in the page's language (RULES): "Password must be between 8 and 1024
// characters long." The everyday refusals of a whole form (a name taken, nothing changed) get words of their own by
// error ID; any other refusal keeps the API's message with its ID, which support can look up.
import type { AppError } from '../platform/errors.ts';
import { format, type Texts } from '../views/i18n.ts';

/** The console text of each field's label, by the operation's field path (PGV's `Type_Nested.Field`, list indexes
 *  left out). */
export const FIELD_LABELS: Record<string, string> = {
  'AddHumanUserRequest.UserName': 'userName',
  'AddHumanUserRequest_Profile.FirstName': 'firstName',
  'AddHumanUserRequest_Profile.LastName': 'lastName',
  'AddHumanUserRequest_Email.Email': 'email',
  'AddHumanUserRequest.InitialPassword': 'password',
  'AddMachineUserRequest.UserName': 'userName',
  'AddMachineUserRequest.Name': 'name',
  'SetUpOrgRequest_Org.Name': 'name',
  'SetUpOrgRequest_Human.UserName': 'userName',
  'SetUpOrgRequest_Human_Profile.FirstName': 'firstName',
  'SetUpOrgRequest_Human_Profile.LastName': 'lastName',
  'SetUpOrgRequest_Human_Email.Email': 'email',
  // SetUpOrg names its password in words ("Password must be …"), as ZITADEL does: see fieldRefusal
  'SetUpOrgRequest_Human.Password': 'password',
  'AddProjectRequest.Name': 'name',
  'UpdateProjectRequest.Name': 'name',
  'AddProjectRoleRequest.RoleKey': 'roleKey',
  'AddProjectRoleRequest.DisplayName': 'displayName',
  'AddProjectRoleRequest.Group': 'group',
  'UpdateProjectRoleRequest.DisplayName': 'displayName',
  'UpdateProjectRoleRequest.Group': 'group',
  'AddOrgMemberRequest.Roles': 'roles',
  'AddProjectMemberRequest.Roles': 'roles',
  'AddOIDCAppRequest.Name': 'name',
  'AddOIDCAppRequest.RedirectUris': 'redirectUris',
  'AddOIDCAppRequest.PostLogoutRedirectUris': 'postLogoutRedirectUris',
  'AddAPIAppRequest.Name': 'name',
  'UpdateOIDCAppConfigRequest.RedirectUris': 'redirectUris',
  'UpdateOIDCAppConfigRequest.PostLogoutRedirectUris': 'postLogoutRedirectUris',
  'AddJWTIDPRequest.Name': 'name',
  'AddJWTIDPRequest.Issuer': 'idpIssuer',
  'AddJWTIDPRequest.JwtEndpoint': 'idpJwtEndpoint',
  'AddJWTIDPRequest.KeysEndpoint': 'idpKeysEndpoint',
  'AddJWTIDPRequest.HeaderName': 'idpHeaderName',
  'UpdateIDPRequest.Name': 'name',
  'UpdateIDPJWTConfigRequest.Issuer': 'idpIssuer',
  'UpdateIDPJWTConfigRequest.JwtEndpoint': 'idpJwtEndpoint',
  'UpdateIDPJWTConfigRequest.KeysEndpoint': 'idpKeysEndpoint',
  'UpdateIDPJWTConfigRequest.HeaderName': 'idpHeaderName',
  'UpdatePasswordComplexityPolicyRequest.MinLength': 'minLength',
  'UpdateLockoutPolicyRequest.MaxPasswordAttempts': 'maxPasswordAttempts',
  'UpdateLockoutPolicyRequest.MaxOtpAttempts': 'maxOtpAttempts',
  'SetHumanPasswordRequest.Password': 'newPassword',
};

/** The rules the operations state in English (PGV's words, the services' own), as console texts with `{field}`
 *  and the rule's numbers or value. */
const RULES: [rule: RegExp, text: string][] = [
  [/^value length must be between (?<min>\d+) and (?<max>\d+) runes, inclusive$/, 'fieldLength'],
  [/^must be between (?<min>\d+) and (?<max>\d+) characters$/, 'fieldLength'],
  [/^value length must be at least (?<min>\d+) runes$/, 'fieldAtLeast'],
  [/^value length must be at most (?<max>\d+) runes$/, 'fieldAtMost'],
  [/^value must be between (?<min>\d+) and (?<max>\d+)( \(or 0\))?$/, 'fieldBetween'],
  [/^value must be a whole number$/, 'fieldWholeNumber'],
  [/^value is required$|^at least one redirect URI is required$/, 'fieldRequired'],
  [/^value must contain at least 1 item\(s\)$/, 'fieldChooseOne'],
  [/^value must be a valid email address$|^must be a valid e-mail address$/, 'fieldEmail'],
  [/^must contain an upper case letter$/, 'fieldUppercase'],
  [/^must contain a lower case letter$/, 'fieldLowercase'],
  [/^must contain a number$/, 'fieldNumber'],
  [/^must contain a symbol$/, 'fieldSymbol'],
  [/^"(?<value>.*)" is not an absolute URI without fragment$/, 'fieldAbsoluteUri'],
  [/^"(?<value>.*)" must be an http\(s\) URI for this app type$/, 'fieldWebUri'],
  [/^must be an absolute URL$/, 'fieldAbsoluteUrl'],
  [/^must be an https URL \(http only for loopback hosts\)$/, 'fieldHttpsUrl'],
  [/^must not contain credentials$/, 'fieldNoCredentials'],
  [/^must not contain a fragment$/, 'fieldNoFragment'],
  [/^must not have the form of an app's client ID/, 'fieldClientIdForm'],
  [/^must not end with @ and an organization's or the instance's domain/, 'fieldLoginNameForm'],
];

/** Refusals of a whole form, by error ID. */
const FORM_REFUSALS: Record<string, string> = {
  'ORG-lapo2m': 'errorOrgExists',
  'COMMAND-CtQ8w': 'errorUserNameTaken',
  'PROJECT-3M9sd': 'errorProjectExists',
  'COMMAND-6Rg9W': 'errorRoleExists',
  'PROJECT-3b8fs': 'errorProjectGrantExists',
  'COMMAND-4M0fs': 'errorUserGrantExists',
  'ORG-poWwe': 'errorMemberExists',
  'PROJECT-PtXi1': 'errorMemberExists',
  // a save of the values already saved
  'COMMAND-2M0fs': 'errorUnchanged',
  'COMMAND-5M0cs': 'errorUnchanged',
  'COMMAND-1m88i': 'errorUnchanged',
  'INSTANCE-4M9vs': 'errorUnchanged',
  'INSTANCE-3n9gg': 'errorUnchanged',
  'INSTANCE-9jlsf': 'errorUnchanged',
  'INSTANCE-0psjF': 'errorUnchanged',
  'INSTANCE-5M9vdd': 'errorUnchanged',
};

/** A refused field: "invalid <path>: <rule>", the innermost of a nested message's ("… | caused by: invalid …"), or
 *  SetUpOrg's "Password <rule>". */
function fieldRefusal(message: string): { path: string; rule: string } | undefined {
  const innermost = message.split(' | caused by: ').at(-1)!;
  const named = /^invalid ([\w.[\]]+): (.*)$/s.exec(innermost);
  if (named) return { path: named[1]!.replace(/\.?\[\d+\]/g, ''), rule: named[2]! };
  const password = /^Password (must .*)$/.exec(message);
  return password ? { path: 'SetUpOrgRequest_Human.Password', rule: password[1]! } : undefined;
}

/** The refusal's message for the form's page. */
export function formErrorText(t: Texts, error: AppError): string {
  const byId = error.id && FORM_REFUSALS[error.id];
  if (byId) return t[byId]!;
  const refused = fieldRefusal(error.message);
  const label = refused && FIELD_LABELS[refused.path];
  if (!refused || !label) return error.publicMessage;
  const field = t[label]!;
  for (const [rule, text] of RULES) {
    const match = rule.exec(refused.rule);
    if (match) return format(t[text]!, { field, ...match.groups });
  }
  return format(t.fieldRefused!, { field, rule: refused.rule });
}
