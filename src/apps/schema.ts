// Input rules for apps. The messages name the field, as ZITADEL's validation errors do.
import { z } from 'zod';
import { invalidArgument } from '../platform/errors.ts';
import { name200, parseInput } from '../platform/input.ts';
import type { AppType } from './queries.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const oidcConfigSchema = z.object({
  redirectUris: z.array(z.string()).max(100).default([]),
  postLogoutRedirectUris: z.array(z.string()).max(100).default([]),
  responseTypes: z
    .array(z.enum(['code', 'id_token', 'id_token token']))
    .min(1)
    .default(['code']),
  grantTypes: z
    .array(z.enum(['authorization_code', 'implicit', 'refresh_token']))
    .min(1)
    .default(['authorization_code']),
  appType: z.enum(['web', 'user_agent', 'native']).default('web'),
  authMethod: z.enum(['basic', 'post', 'none', 'private_key_jwt']).default('basic'),
  accessTokenType: z.enum(['opaque', 'jwt']).default('opaque'),
  idTokenUserinfoAssertion: z.boolean().default(false),
  idTokenRoleAssertion: z.boolean().default(false),
  accessTokenRoleAssertion: z.boolean().default(false),
  devMode: z.boolean().default(false),
});
export type OidcConfigInput = z.input<typeof oidcConfigSchema>;
export type OidcConfig = z.output<typeof oidcConfigSchema>;

export const addOidcAppSchema = oidcConfigSchema.extend({ projectId: z.string().min(1), name: name200 });
export const addApiAppSchema = z.object({
  projectId: z.string().min(1),
  name: name200,
  authMethod: z.enum(['basic', 'private_key_jwt']).default('basic'),
});

/** Parses app input (platform/input.ts) with the apps' error ID. */
export function parseAppInput<S extends z.ZodType>(schema: S, input: unknown, request: string): z.output<S> {
  return parseInput(schema, input, request, 'APP-Inv4l1d');
}

/** Consistency rules across fields: what oidc-provider would refuse later must be refused when saving. */
export function checkOidcConfig(c: OidcConfig, request: string): void {
  const fail = (field: string, message: string) => {
    throw invalidArgument(`invalid ${request}.${field}: ${message}`, 'APP-Inv4l1d');
  };
  const code = c.responseTypes.includes('code');
  const implicit = c.responseTypes.some((t) => t.startsWith('id_token'));
  if (code !== c.grantTypes.includes('authorization_code'))
    fail('GrantTypes', 'authorization_code is required exactly when response type code is registered');
  if (implicit !== c.grantTypes.includes('implicit'))
    fail('GrantTypes', 'implicit is required exactly when an id_token response type is registered');
  if (c.grantTypes.includes('refresh_token') && !code) fail('GrantTypes', 'refresh_token needs authorization_code');
  if (!c.redirectUris.length) fail('RedirectUris', 'at least one redirect URI is required');
  for (const [field, uris] of [
    ['RedirectUris', c.redirectUris],
    ['PostLogoutRedirectUris', c.postLogoutRedirectUris],
  ] as const) {
    for (const uri of uris) {
      const url = URL.parse(uri);
      if (!url || uri.includes('#')) fail(field, `"${uri}" is not an absolute URI without fragment`);
      if (c.appType !== 'native' && url!.protocol !== 'http:' && url!.protocol !== 'https:')
        fail(field, `"${uri}" must be an http(s) URI for this app type`);
    }
  }
}

/** http is usable only for loopback native apps (RFC 8252 §7.3) or in dev mode (ZITADEL's dev mode). */
export function usableRedirectUri(uri: string, c: { devMode: boolean; appType: AppType }): boolean {
  const url = URL.parse(uri);
  return url?.protocol !== 'http:' || c.devMode || (c.appType === 'native' && LOOPBACK.has(url.hostname));
}

/** ZITADEL's compliance report (AddOIDCApp noneCompliant/complianceProblems): the app is saved, and what it
 *  reports is not used at the endpoints (an http redirect URI outside dev mode never matches, clients.ts). */
export function oidcComplianceProblems(c: OidcConfig): string[] {
  const problems: string[] = [];
  const implicit = c.grantTypes.includes('implicit');
  if ([...c.redirectUris, ...c.postLogoutRedirectUris].some((uri) => !usableRedirectUri(uri, c))) {
    problems.push(
      implicit
        ? 'Application.OIDC.V1.Implicit.RedirectUris.HttpNotAllowed'
        : 'Application.OIDC.V1.Code.RedirectUris.HttpOnlyForDevMode',
    );
  }
  if (c.appType === 'user_agent' && c.authMethod !== 'none')
    problems.push('Application.OIDC.V1.UserAgent.AuthMethodType.NotNone');
  if (c.appType === 'native' && c.authMethod !== 'none')
    problems.push('Application.OIDC.V1.Native.AuthMethodType.NotNone');
  return problems.length ? ['Application.OIDC.V1.NotCompliant', ...problems] : [];
}
