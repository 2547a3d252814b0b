// `gatehouse app create`: an OIDC app, in a new project or an existing one, with the defaults an app made in the
// console gets (apps/defaults.ts), through the same service functions as the management API's AddProject and
// AddOIDCApp. Unlike the API, it refuses what would make an app that cannot be used (an http redirect URI outside
// development mode), and says what to do when the project exists already.
import { addOidcApp } from '../apps/service.ts';
import {
  addOidcAppSchema,
  checkOidcConfig,
  parseAppInput,
  usableRedirectUri,
  type OidcConfig,
} from '../apps/schema.ts';
import { NEW_APP_AUTH_METHOD, NEW_APP_FLOWS } from '../apps/defaults.ts';
import type { AppType } from '../apps/queries.ts';
import { addProject, listProjects } from '../projects/service.ts';
import type { Db } from '../platform/db.ts';
import { AppError, Code } from '../platform/errors.ts';
import {
  CLI_CREATOR,
  OUTPUT_HELP,
  OUTPUT_OPTION,
  parseOptions,
  print,
  required,
  UsageError,
  withInstance,
  type Command,
} from './command.ts';
import { ORG_HELP, ORG_OPTION, orgOf } from './provision.ts';

const APP_OPTIONS = {
  ...ORG_OPTION,
  ...OUTPUT_OPTION,
  project: { type: 'string' },
  'project-id': { type: 'string' },
  name: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true, default: [] as string[] },
  'post-logout-redirect-uri': { type: 'string', multiple: true, default: [] as string[] },
  type: { type: 'string', default: 'web' },
  'auth-method': { type: 'string' },
  'grant-type': { type: 'string', multiple: true, default: [] as string[] },
  'response-type': { type: 'string', multiple: true, default: [] as string[] },
  'access-token-type': { type: 'string', default: 'opaque' },
  'id-token-userinfo': { type: 'boolean', default: false },
  'dev-mode': { type: 'boolean', default: false },
} as const;

export const appCreate: Command = {
  summary: 'create an OIDC application (and its project); prints client id and secret',
  help: `Usage: gatehouse app create (--project NAME | --project-id ID) --name NAME --redirect-uri URI [options]

Creates an OIDC application, in a new project (--project) or an existing one (--project-id; "gatehouse project
list" shows them). Prints {"projectId","appId","clientId","clientSecret","complianceProblems"}; the secret is shown
only this once. Without options the app is what the console makes: the code flow with refresh tokens (a sign-in
with the scope offline_access gets a refresh token), a client secret for web apps, PKCE without a secret for
user_agent and native apps. An http redirect URI is refused (exit code 2) unless --dev-mode is given or the app is
native and the URI a loopback address.

  --project NAME                 create a new project with this name
  --project-id ID                use an existing project of the org
  --name NAME                    application name                                      required
  --redirect-uri URI             allowed redirect URI (repeatable; exact match)        required
  --post-logout-redirect-uri URI allowed post-logout redirect URI (repeatable)
  --type web|user_agent|native   application type (default web)
  --auth-method basic|post|none|private_key_jwt   client authentication (default: basic for web apps, none for
                                 user_agent and native apps, which then use PKCE)
  --grant-type TYPE              authorization_code, implicit, refresh_token (repeatable; default
                                 authorization_code and refresh_token)
  --response-type TYPE           code, id_token, "id_token token" (repeatable; default code)
  --access-token-type opaque|jwt access token format (default opaque)
  --id-token-userinfo            put the user's claims into the ID token
  --dev-mode                     allow http redirect URIs (development only)
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, APP_OPTIONS);
    if (Boolean(o.project) === Boolean(o['project-id']))
      throw new UsageError('give exactly one of --project NAME or --project-id ID');
    const input = {
      name: required(o.name, 'name'),
      redirectUris: o['redirect-uri'],
      postLogoutRedirectUris: o['post-logout-redirect-uri'],
      appType: o.type,
      authMethod: o['auth-method'] ?? NEW_APP_AUTH_METHOD[o.type as AppType],
      accessTokenType: o['access-token-type'],
      idTokenUserinfoAssertion: o['id-token-userinfo'],
      devMode: o['dev-mode'],
      grantTypes: o['grant-type'].length ? o['grant-type'] : NEW_APP_FLOWS.grantTypes,
      responseTypes: o['response-type'].length ? o['response-type'] : NEW_APP_FLOWS.responseTypes,
    };
    // checked before the project is created, so a bad app leaves nothing behind
    const config = parseAppInput(
      addOidcAppSchema,
      { ...input, projectId: o['project-id'] ?? 'new' },
      'AddOIDCAppRequest',
    );
    checkOidcConfig(config, 'AddOIDCAppRequest');
    refuseUnusableUris(config);
    return withInstance(ctx, async ({ db, secrets, instance }) => {
      const orgId = await orgOf(db, instance, o.org);
      const projectId = o['project-id'] ?? (await newProject(db, orgId, o.project!));
      const app = await addOidcApp(db, secrets, orgId, { ...config, projectId }, CLI_CREATOR);
      print(
        ctx,
        {
          projectId,
          appId: app.appId,
          clientId: app.clientId,
          clientSecret: app.clientSecret ?? '',
          complianceProblems: app.complianceProblems ?? [],
        },
        o.output,
      );
      return 0;
    });
  },
};

/** The API saves an http redirect URI outside development mode and reports it (complianceProblems), but sign-in never
 *  accepts it: an app that looks ready and cannot be used, so the CLI refuses it. */
function refuseUnusableUris(config: OidcConfig): void {
  for (const [option, uris] of [
    ['redirect-uri', config.redirectUris],
    ['post-logout-redirect-uri', config.postLogoutRedirectUris],
  ] as const) {
    const uri = uris.find((u) => !usableRedirectUri(u, config));
    if (uri)
      throw new UsageError(
        `--${option} ${uri} is an http URI, which sign-in accepts only in development mode: add --dev-mode (for ` +
          `development), or use https`,
      );
  }
}

/** A new project of the org; one of that name exists already: the way to add the app to it. */
async function newProject(db: Db, orgId: string, name: string): Promise<string> {
  try {
    return (await addProject(db, { orgId, name }, CLI_CREATOR)).projectId;
  } catch (error) {
    if (!(error instanceof AppError && error.code === Code.AlreadyExists)) throw error;
    const page = { offset: 0n, limit: 1, asc: true };
    const [existing] = (await listProjects(db, orgId, [{ method: 'equalsIgnoreCase', value: name }], page)).rows;
    if (!existing) throw error;
    throw new Error(
      `the project "${existing.name}" exists already (id ${existing.id}): add the app to it with --project-id ` +
        `${existing.id}, or name a new project with --project`,
    );
  }
}
