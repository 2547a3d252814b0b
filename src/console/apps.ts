// Console area "Apps" of a project: create per kind (web, SPA, native: AddOIDCApp; API: AddAPIApp), the
// client secret shown exactly once (never stored in a URL or a cookie: the answer to the POST shows it), edit the
// redirect URIs and token settings (UpdateOIDCAppConfig), regenerate the secret, deactivate, reactivate, remove.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import {
  APIAuthMethodType,
  AppState,
  OIDCAuthMethodType,
  OIDCTokenType,
  type App,
} from '@zitadel/proto/zitadel/app_pb.js';
import { APP_TYPES, newOidcAppSettings } from '../management/app-messages.ts';
import { html } from '../views/html.ts';
import {
  Checkbox,
  Flash,
  Input,
  KeyFileLink,
  PostForm,
  ShownOnce,
  StateBadge,
  Submit,
  TextArea,
} from '../views/console/components.ts';
import { format } from '../views/i18n.ts';
import { type RedirectProblems, redirectProblems } from './app-redirects.ts';
import { type ConsolePage, type ConsoleRouter, inputError } from './page.ts';
import { removal, runStateChange, StateForms } from './actions.ts';

/** The four kinds a person chooses from: an OIDC app of a type (AddOIDCApp, with a new app's defaults of that type,
 *  apps/defaults.ts), or an API (AddAPIApp). */
const KINDS = {
  web: { appType: 'web', label: 'kindWeb' },
  spa: { appType: 'user_agent', label: 'kindSpa' },
  native: { appType: 'native', label: 'kindNative' },
  api: { appType: undefined, label: 'kindApi' },
} as const;
type Kind = keyof typeof KINDS;

const ids = (page: ConsolePage) => page.request.params as { id: string; appId?: string };
const projectUrl = (page: ConsolePage, rest = '') =>
  page.href(`/ui/console/projects/${encodeURIComponent(ids(page).id)}${rest}`);
const appUrl = (page: ConsolePage, appId: string, rest = '') =>
  projectUrl(page, `/apps/${encodeURIComponent(appId)}${rest}`);
const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

interface NewAppForm {
  name?: string;
  kind?: string;
  redirectUris?: string;
  postLogoutRedirectUris?: string;
  devMode?: boolean;
}

interface FormFlash {
  notice?: string | undefined;
  error?: string | undefined;
  status?: number;
  /** Redirect URIs sign-in would refuse, by field: the form offers development mode. */
  problems?: RedirectProblems | undefined;
}

/** A second way to send a form whose redirect URIs need development mode: with it turned on. After the form's own
 *  button, so that Enter in a field still sends the form as filled in. */
const WithDevMode = ({ label }: { label: string | undefined }) =>
  html`<button type="submit" class="secondary" name="devMode" value="on" id="with-dev-mode">${label}</button>`;

async function showNew(page: ConsolePage, form: NewAppForm = {}, flash: FormFlash = {}) {
  const { t } = page;
  const { project } = await page.run(M.method.getProjectByID, { id: ids(page).id });
  const kind = form.kind ?? 'web';
  const body = html`<p><a href=${projectUrl(page)}>${project?.name}</a></p>
    <${Flash} error=${flash.error} />
    <${PostForm} action=${projectUrl(page, '/apps')} csrf=${page.csrf}>
      <${Input} name="name" label=${t.name} value=${form.name} required=${true} />
      <fieldset>
        <legend>${t.appKind}</legend>
        ${Object.entries(KINDS).map(
          ([value, k]) =>
            html`<div class="check">
              <input type="radio" id=${`kind-${value}`} name="kind" value=${value} checked=${kind === value} />
              <label for=${`kind-${value}`}>${t[k.label]}</label>
            </div>`,
        )}
      </fieldset>
      <${TextArea}
        name="redirectUris"
        label=${t.redirectUris}
        value=${form.redirectUris ?? ''}
        help=${t.urisHelp}
        problem=${flash.problems?.redirectUris}
      />
      <${TextArea}
        name="postLogoutRedirectUris"
        label=${t.postLogoutRedirectUris}
        value=${form.postLogoutRedirectUris ?? ''}
        help=${t.urisHelp}
        problem=${flash.problems?.postLogoutRedirectUris}
      />
      <${Checkbox} name="devMode" label=${t.devMode} checked=${form.devMode ?? false} help=${t.devModeHelp} />
      <div class="buttons">
        <${Submit} label=${t.createApp} />
        ${flash.problems && html`<${WithDevMode} label=${t.createWithDevMode} />`}
      </div>
    <//>`;
  return page.render('projects', t.newApp!, body, flash.status);
}

async function create(page: ConsolePage) {
  const projectId = ids(page).id;
  const form: NewAppForm = {
    name: page.field('name'),
    kind: page.field('kind'),
    redirectUris: page.field('redirectUris'),
    postLogoutRedirectUris: page.field('postLogoutRedirectUris'),
    devMode: page.field('devMode') === 'on',
  };
  const kind = (Object.hasOwn(KINDS, form.kind!) ? form.kind : 'web') as Kind;
  const settings = KINDS[kind];
  const problems =
    settings.appType !== undefined &&
    redirectProblems(page.t, {
      redirectUris: lines(form.redirectUris!),
      postLogoutRedirectUris: lines(form.postLogoutRedirectUris!),
      devMode: form.devMode!,
      appType: settings.appType,
    });
  if (problems) return showNew(page, form, { error: page.t.appNotCreated, status: 400, problems });
  let added: { appId: string; clientId: string; clientSecret: string };
  try {
    added =
      settings.appType === undefined
        ? await page.run(M.method.addAPIApp, {
            projectId,
            name: form.name!,
            authMethodType: APIAuthMethodType.API_AUTH_METHOD_TYPE_BASIC,
          })
        : await page.run(M.method.addOIDCApp, {
            projectId,
            name: form.name!,
            redirectUris: lines(form.redirectUris!),
            postLogoutRedirectUris: lines(form.postLogoutRedirectUris!),
            ...newOidcAppSettings(settings.appType),
            devMode: form.devMode!,
          });
  } catch (error) {
    return showNew(page, form, { error: inputError(error, page.t), status: 400 });
  }
  return shownOnce(page, form.name!, added);
}

/** The answer to a creation or regeneration: the client id, and the secret exactly this once. */
function shownOnce(page: ConsolePage, name: string, app: { appId: string; clientId: string; clientSecret: string }) {
  const { t } = page;
  const body = html`${app.clientSecret && html`<p class="lead">${t.secretOnceLead}</p>`}
    <${ShownOnce} t=${t} id="client-id" label=${t.clientId} value=${app.clientId} />
    ${
      app.clientSecret &&
      html`<${ShownOnce} t=${t} id="client-secret" label=${t.clientSecret} value=${app.clientSecret} />
      <${KeyFileLink}
        t=${t}
        fileName=${`${app.clientId}.json`}
        content=${{ appId: app.appId, clientId: app.clientId, clientSecret: app.clientSecret }}
      />`
    }
    <p><a class="button primary" href=${appUrl(page, app.appId)}>${t.toApp}</a></p>`;
  // the page holds a secret: never cached, never kept in history (HTML_SECURITY_HEADERS sends no-store)
  return page.render('projects', format(t.secretOnceTitle!, { name }), body);
}

const appIdOf = (page: ConsolePage) => ids(page).appId!;
const clientIdOf = (config: { case: string | undefined; value?: unknown } | undefined) =>
  config?.case === 'oidcConfig' || config?.case === 'apiConfig' ? (config.value as { clientId: string }).clientId : '';

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

/** The app's page; after a refused change, with the settings as posted (`posted`) and the reason. */
async function showApp(page: ConsolePage, flash: FormFlash & { posted?: SettingsForm } = {}) {
  const { t } = page;
  const [{ app }, { project }] = await Promise.all([
    page.run(M.method.getAppByID, { projectId: ids(page).id, appId: appIdOf(page) }),
    page.run(M.method.getProjectByID, { id: ids(page).id }),
  ]);
  const active = app?.state === AppState.ACTIVE;
  const oidc = app?.config.case === 'oidcConfig' ? app.config.value : undefined;
  const clientId = clientIdOf(app?.config);
  const hasSecret = oidc ? oidc.authMethodType !== OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE : true;
  const form = oidc && (flash.posted ?? storedSettings(oidc));
  // an app saved so through the API or the CLI: it cannot sign anyone in, and the page says why
  const problems = flash.problems ?? (oidc && form && problemsOf(page, oidc, form));
  const error = flash.error ?? (problems ? t.appNotUsable : undefined);
  const body = html`<p><a href=${projectUrl(page)}>${project?.name}</a></p>
    <${Flash} notice=${flash.notice} error=${error} />
    <p><${StateBadge} t=${t} active=${active} /></p>
    <dl class="facts">
      <dt>${t.clientId}</dt>
      <dd id="client-id">${clientId}</dd>
    </dl>
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
        hasSecret &&
        html`<${PostForm} action=${appUrl(page, appIdOf(page), '/secret')} csrf=${page.csrf} class="inline">
        <${Submit} label=${t.regenerateSecret} kind="secondary" />
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

async function setState(page: ConsolePage) {
  const ref = { projectId: ids(page).id, appId: appIdOf(page) };
  await runStateChange(page, { reactivate: M.method.reactivateApp, deactivate: M.method.deactivateApp }, ref);
  return page.reply.redirect(appUrl(page, ref.appId), 303);
}

export function registerApps(router: ConsoleRouter): void {
  router.get('/projects/:id/apps/new', (page) => showNew(page));
  router.post('/projects/:id/apps', create);
  router.get('/projects/:id/apps/:appId', (page) =>
    showApp(page, { notice: (page.request.query as { saved?: string }).saved ? page.t.saved : undefined }),
  );
  router.post('/projects/:id/apps/:appId', updateConfig);
  router.post('/projects/:id/apps/:appId/secret', regenerate);
  router.post('/projects/:id/apps/:appId/state', setState);
  router.post(
    '/projects/:id/apps/:appId/remove',
    removal(
      async (page) =>
        (await page.run(M.method.getAppByID, { projectId: ids(page).id, appId: appIdOf(page) })).app?.name ?? '',
      (page) => page.run(M.method.removeApp, { projectId: ids(page).id, appId: appIdOf(page) }),
      (page) => appUrl(page, appIdOf(page)),
      (page) => projectUrl(page),
    ),
  );
}
