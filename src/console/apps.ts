// Console area "Apps" of a project: an app's page with what its developer needs to connect it (app-connect.ts),
// its redirect URIs and token settings (UpdateOIDCAppConfig), regenerate the secret (shown exactly once, never stored
// in a URL or a cookie: the answer to the POST shows it) or add a key (private_key_jwt), deactivate, reactivate,
// remove. Making one: app-new.ts.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import {
  APIAuthMethodType,
  AppState,
  OIDCAuthMethodType,
  OIDCTokenType,
  type App,
} from '@zitadel/proto/zitadel/app_pb.js';
import { APP_TYPES } from '../management/app-messages.ts';
import { html } from '../views/html.ts';
import { KeyType } from '@zitadel/proto/zitadel/auth_n_key_pb.js';
import { Checkbox, Flash, KeyFileLink, PostForm, StateBadge, Submit, TextArea } from '../views/console/components.ts';
import { format } from '../views/i18n.ts';
import { APP_KINDS, kindOf } from './app-kinds.ts';
import { type ConnectedApp, ConnectSection } from './app-connect.ts';
import { appUrl, clientIdOf, type FormFlash, ids, lines, projectUrl, shownOnce, WithDevMode } from './app-parts.ts';
import { registerNewApp } from './app-new.ts';
import { redirectProblems } from './app-redirects.ts';
import { type ConsolePage, type ConsoleRouter, inputError } from './page.ts';
import { removal, runStateChange, StateForms } from './actions.ts';

const appIdOf = (page: ConsolePage) => ids(page).appId!;

type OidcConfig = Extract<NonNullable<App['config']>, { case: 'oidcConfig' }>['value'];

/** The app's settings form: its redirect URIs (one per line) and its switches. */
interface SettingsForm {
  redirectUris: string;
  postLogoutRedirectUris: string;
  switches: Record<(typeof SWITCHES)[number], boolean>;
}

const SWITCHES = [
  'devMode',
  'accessTokenJwt',
  'accessTokenRoleAssertion',
  'idTokenRoleAssertion',
  'idTokenUserinfoAssertion',
] as const;

const storedSettings = (oidc: OidcConfig): SettingsForm => ({
  redirectUris: oidc.redirectUris.join('\n'),
  postLogoutRedirectUris: oidc.postLogoutRedirectUris.join('\n'),
  switches: {
    devMode: oidc.devMode,
    accessTokenJwt: oidc.accessTokenType === OIDCTokenType.OIDC_TOKEN_TYPE_JWT,
    accessTokenRoleAssertion: oidc.accessTokenRoleAssertion,
    idTokenRoleAssertion: oidc.idTokenRoleAssertion,
    idTokenUserinfoAssertion: oidc.idTokenUserinfoAssertion,
  },
});

const postedSettings = (page: ConsolePage): SettingsForm => ({
  redirectUris: page.field('redirectUris'),
  postLogoutRedirectUris: page.field('postLogoutRedirectUris'),
  switches: Object.fromEntries(SWITCHES.map((name) => [name, page.field(name) === 'on'])) as SettingsForm['switches'],
});

const problemsOf = (page: ConsolePage, oidc: OidcConfig, form: SettingsForm) =>
  redirectProblems(page.t, {
    redirectUris: lines(form.redirectUris),
    postLogoutRedirectUris: lines(form.postLogoutRedirectUris),
    devMode: form.switches.devMode,
    appType: APP_TYPES[oidc.appType]!,
  });

/** How an app authenticates at the token or introspection endpoint: for the connection block and the secret's
 *  button. */
function secretOf(app: App | undefined): ConnectedApp['secret'] {
  if (app?.config.case === 'apiConfig')
    return app.config.value.authMethodType === APIAuthMethodType.API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT
      ? 'key'
      : 'secret';
  const method = app?.config.case === 'oidcConfig' ? app.config.value.authMethodType : undefined;
  if (method === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE) return 'none';
  return method === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT ? 'key' : 'secret';
}

function connectedApp(app: App | undefined): ConnectedApp {
  const oidc = app?.config.case === 'oidcConfig' ? app.config.value : undefined;
  return {
    kind: kindOf(oidc ? APP_TYPES[oidc.appType] : undefined),
    clientId: clientIdOf(app?.config),
    redirectUris: oidc?.redirectUris ?? [],
    secret: secretOf(app),
  };
}

/** The app's page; after a refused change, with the settings as posted (`posted`) and the reason. */
async function showApp(page: ConsolePage, flash: FormFlash & { posted?: SettingsForm } = {}) {
  const { t } = page;
  const [{ app }, { project }] = await Promise.all([
    page.run(M.method.getAppByID, { projectId: ids(page).id, appId: appIdOf(page) }),
    page.run(M.method.getProjectByID, { id: ids(page).id }),
  ]);
  const active = app?.state === AppState.ACTIVE;
  const oidc = app?.config.case === 'oidcConfig' ? app.config.value : undefined;
  const connected = connectedApp(app);
  const form = oidc && (flash.posted ?? storedSettings(oidc));
  // an app saved so through the API or the CLI: it cannot sign anyone in, and the page says why
  const problems = flash.problems ?? (oidc && form && problemsOf(page, oidc, form));
  const error = flash.error ?? (problems ? t.appNotUsable : undefined);
  const body = html`<p><a href=${projectUrl(page, '/apps')}>${project?.name}</a></p>
    <${Flash} notice=${flash.notice} error=${error} />
    <p>
      <${StateBadge} t=${t} active=${active} />
      <span class="badge" id="app-kind">${t[APP_KINDS[connected.kind].label]}</span>
    </p>
    <${ConnectSection} page=${page} app=${connected} />
    ${
      form &&
      html`<section aria-labelledby="settings">
      <h2 id="settings">${t.settingsTitle}</h2>
      <${PostForm} action=${appUrl(page, appIdOf(page))} csrf=${page.csrf}>
        <${TextArea}
          name="redirectUris"
          label=${t.redirectUris}
          value=${form.redirectUris}
          help=${t.urisHelp}
          problem=${problems ? problems.redirectUris : undefined}
        />
        <${TextArea}
          name="postLogoutRedirectUris"
          label=${t.postLogoutRedirectUris}
          value=${form.postLogoutRedirectUris}
          help=${t.urisHelp}
          problem=${problems ? problems.postLogoutRedirectUris : undefined}
        />
        ${SWITCHES.map(
          (name) =>
            html`<${Checkbox}
              name=${name}
              label=${t[name]}
              checked=${form.switches[name]}
              help=${name === 'devMode' ? t.devModeHelp : undefined}
            />`,
        )}
        <div class="buttons">
          <${Submit} label=${t.save} />
          ${problems && html`<${WithDevMode} label=${t.saveWithDevMode} />`}
        </div>
      <//>
    </section>`
    }
    <section class="actions">
      ${
        connected.secret === 'secret' &&
        html`<${PostForm} action=${appUrl(page, appIdOf(page), '/secret')} csrf=${page.csrf} class="inline">
        <${Submit} label=${t.regenerateSecret} kind="secondary" />
      <//>`
      }
      ${
        connected.secret === 'key' &&
        html`<${PostForm} action=${appUrl(page, appIdOf(page), '/keys')} csrf=${page.csrf} class="inline">
        <${Submit} label=${t.addKey} kind="secondary" />
      <//>`
      }
      <${StateForms}
        t=${t}
        csrf=${page.csrf}
        active=${active}
        action=${(rest: string) => appUrl(page, appIdOf(page), rest)}
      />
    </section>`;
  return page.render('projects', app?.name ?? appIdOf(page), body, flash.status);
}

async function updateConfig(page: ConsolePage) {
  const ref = { projectId: ids(page).id, appId: appIdOf(page) };
  const posted = postedSettings(page);
  try {
    const { app } = await page.run(M.method.getAppByID, ref);
    const oidc = app?.config.case === 'oidcConfig' ? app.config.value : undefined;
    if (!oidc) return page.reply.redirect(appUrl(page, ref.appId), 303);
    const problems = problemsOf(page, oidc, posted);
    if (problems) return showApp(page, { error: page.t.appNotSaved, status: 400, problems, posted });
    await page.run(M.method.updateOIDCAppConfig, {
      ...ref,
      redirectUris: lines(posted.redirectUris),
      postLogoutRedirectUris: lines(posted.postLogoutRedirectUris),
      responseTypes: oidc.responseTypes,
      grantTypes: oidc.grantTypes,
      appType: oidc.appType,
      authMethodType: oidc.authMethodType,
      devMode: posted.switches.devMode,
      accessTokenType: posted.switches.accessTokenJwt
        ? OIDCTokenType.OIDC_TOKEN_TYPE_JWT
        : OIDCTokenType.OIDC_TOKEN_TYPE_BEARER,
      accessTokenRoleAssertion: posted.switches.accessTokenRoleAssertion,
      idTokenRoleAssertion: posted.switches.idTokenRoleAssertion,
      idTokenUserinfoAssertion: posted.switches.idTokenUserinfoAssertion,
      additionalOrigins: oidc.additionalOrigins,
      skipNativeAppSuccessPage: oidc.skipNativeAppSuccessPage,
      backChannelLogoutUri: oidc.backChannelLogoutUri,
    });
  } catch (error) {
    return showApp(page, { error: inputError(error, page.t), status: 400, posted });
  }
  return page.reply.redirect(appUrl(page, ref.appId, '?saved=1'), 303);
}

async function regenerate(page: ConsolePage) {
  const ref = { projectId: ids(page).id, appId: appIdOf(page) };
  const { app } = await page.run(M.method.getAppByID, ref);
  const { clientSecret } =
    app?.config.case === 'apiConfig'
      ? await page.run(M.method.regenerateAPIClientSecret, ref)
      : await page.run(M.method.regenerateOIDCClientSecret, ref);
  return shownOnce(page, app?.name ?? '', {
    appId: ref.appId,
    clientId: clientIdOf(app?.config),
    clientSecret,
  });
}

/** A key pair for an app that signs its client assertions (private_key_jwt, RFC 7523): AddAppKey, and its key file
 *  (the private key) to download exactly this once; the server keeps only the public key. */
async function addKey(page: ConsolePage) {
  const { t } = page;
  const ref = { projectId: ids(page).id, appId: appIdOf(page) };
  const { app } = await page.run(M.method.getAppByID, ref);
  const { id, keyDetails } = await page.run(M.method.addAppKey, { ...ref, type: KeyType.JSON });
  const body = html`<p class="lead">${t.keyOnceLead}</p>
    <${KeyFileLink} t=${t} fileName=${`${id}.json`} content=${JSON.parse(new TextDecoder().decode(keyDetails))} />
    <p><a class="button primary" href=${appUrl(page, ref.appId)}>${t.toApp}</a></p>`;
  // the page holds a private key: never cached (HTML_SECURITY_HEADERS sends no-store)
  return page.render('projects', format(t.keyOnceTitle!, { name: app?.name ?? '' }), body);
}

async function setState(page: ConsolePage) {
  const ref = { projectId: ids(page).id, appId: appIdOf(page) };
  await runStateChange(page, { reactivate: M.method.reactivateApp, deactivate: M.method.deactivateApp }, ref);
  return page.reply.redirect(appUrl(page, ref.appId), 303);
}

export function registerApps(router: ConsoleRouter): void {
  registerNewApp(router);
  router.get('/projects/:id/apps/:appId', (page) =>
    showApp(page, { notice: (page.request.query as { saved?: string }).saved ? page.t.saved : undefined }),
  );
  router.post('/projects/:id/apps/:appId', updateConfig);
  router.post('/projects/:id/apps/:appId/secret', regenerate);
  router.post('/projects/:id/apps/:appId/keys', addKey);
  router.post('/projects/:id/apps/:appId/state', setState);
  router.post(
    '/projects/:id/apps/:appId/remove',
    removal(
      async (page) =>
        (await page.run(M.method.getAppByID, { projectId: ids(page).id, appId: appIdOf(page) })).app?.name ?? '',
      (page) => page.run(M.method.removeApp, { projectId: ids(page).id, appId: appIdOf(page) }),
      (page) => appUrl(page, appIdOf(page)),
      (page) => projectUrl(page, '/apps'),
    ),
  );
}
