// Making an app in the console, guided by its kind: the first page chooses the kind (web, single-page, native, API;
// one sentence each), the second asks only for what that kind needs and shows what it gets (app-kinds.ts, the
// defaults the CLI shares). Creating runs AddOIDCApp or AddAPIApp; an http redirect URI that sign-in would refuse is
// named next to its field and nothing is made (app-redirects.ts); the client secret is shown exactly once.
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { NEW_API_APP_AUTH_METHOD } from '../apps/defaults.ts';
import { API_AUTH_METHODS, newOidcAppSettings } from '../management/app-messages.ts';
import { html } from '../views/html.ts';
import { Checkbox, Flash, Input, PostForm, Submit, TextArea } from '../views/console/components.ts';
import { format } from '../views/i18n.ts';
import { APP_KINDS, type AppKind, isAppKind, kindDefaults } from './app-kinds.ts';
import { type FormFlash, ids, lines, projectUrl, shownOnce, WithDevMode } from './app-parts.ts';
import { redirectProblems } from './app-redirects.ts';
import { type ConsolePage, type ConsoleRouter, inputError } from './page.ts';

interface NewAppForm {
  name?: string;
  redirectUris?: string;
  postLogoutRedirectUris?: string;
  devMode?: boolean;
  authMethod?: string;
}

const isApiAuthMethod = (value: string): value is (typeof API_AUTH_METHODS)[number] =>
  (API_AUTH_METHODS as readonly string[]).includes(value);

/** The first step: the four kinds as links to the second, each with the sentence that says when to choose it. */
async function showKinds(page: ConsolePage, flash: FormFlash = {}) {
  const { t } = page;
  const { project } = await page.run(M.method.getProjectByID, { id: ids(page).id });
  const body = html`<p><a href=${projectUrl(page, '/apps')}>${project?.name}</a></p>
    <${Flash} error=${flash.error} />
    <p class="lead">${t.chooseKindLead}</p>
    <ul class="kinds">
      ${Object.entries(APP_KINDS).map(
        ([kind, k]) =>
          html`<li>
            <a class="kind" id=${`kind-${kind}`} href=${projectUrl(page, `/apps/new?type=${kind}`)}>
              <strong>${t[k.label]}</strong>
              <span>${t[k.about]}</span>
            </a>
          </li>`,
      )}
    </ul>`;
  return page.render('projects', t.chooseKindTitle!, body, flash.status);
}

/** What an app of the kind gets, before it is made. */
function KindDefaults({ page, kind }: { page: ConsolePage; kind: AppKind }) {
  const { t } = page;
  const defaults = kindDefaults(kind);
  return html`<dl class="facts" id="kind-defaults">
    <dt>${t.grantTypes}</dt>
    <dd>${defaults.grantTypes.length ? defaults.grantTypes.join(', ') : t.grantTypesNone}</dd>
    ${
      APP_KINDS[kind].appType !== undefined &&
      html`<dt>${t.clientAuthentication}</dt>
      <dd>${defaults.pkce ? format(t.authNoneWithPkce!, { method: defaults.authMethod }) : defaults.authMethod}</dd>`
    }
  </dl>`;
}

/** An API's choice of client authentication at the introspection endpoint. */
function ApiAuthMethod({ page, value }: { page: ConsolePage; value: string }) {
  const { t } = page;
  const labels = { basic: t.apiAuthBasic, private_key_jwt: t.apiAuthJwt };
  return html`<fieldset>
    <legend>${t.clientAuthentication}</legend>
    ${API_AUTH_METHODS.map(
      (method) =>
        html`<div class="check">
          <input
            type="radio"
            id=${`authMethod-${method}`}
            name="authMethod"
            value=${method}
            checked=${value === method}
          />
          <label for=${`authMethod-${method}`}>${labels[method]}</label>
        </div>`,
    )}
  </fieldset>`;
}

/** The second step: the form of one kind, with only the fields that kind needs. */
async function showForm(page: ConsolePage, kind: AppKind, form: NewAppForm = {}, flash: FormFlash = {}) {
  const { t } = page;
  const k = APP_KINDS[kind];
  const body = html`<p><a href=${projectUrl(page, '/apps/new')}>${t.changeKind}</a></p>
    <${Flash} error=${flash.error} />
    <p class="lead">${t[k.about]}</p>
    <${KindDefaults} page=${page} kind=${kind} />
    <${PostForm} action=${projectUrl(page, '/apps')} csrf=${page.csrf}>
      <input type="hidden" name="kind" value=${kind} />
      <${Input} name="name" label=${t.name} value=${form.name} required=${true} />
      ${
        k.redirectHelp === undefined
          ? html`<${ApiAuthMethod} page=${page} value=${form.authMethod ?? NEW_API_APP_AUTH_METHOD} />`
          : html`<${TextArea}
              name="redirectUris"
              label=${t.redirectUris}
              value=${form.redirectUris ?? ''}
              help=${t[k.redirectHelp]}
              problem=${flash.problems?.redirectUris}
            />
            <${TextArea}
              name="postLogoutRedirectUris"
              label=${t.postLogoutRedirectUris}
              value=${form.postLogoutRedirectUris ?? ''}
              help=${t.urisHelp}
              problem=${flash.problems?.postLogoutRedirectUris}
            />
            <${Checkbox} name="devMode" label=${t.devMode} checked=${form.devMode ?? false} help=${t.devModeHelp} />`
      }
      <div class="buttons">
        <${Submit} label=${t.createApp} />
        ${flash.problems && html`<${WithDevMode} label=${t.createWithDevMode} />`}
      </div>
    <//>`;
  return page.render('projects', format(t.newAppOfKind!, { kind: t[k.label]! }), body, flash.status);
}

/** The API call of the form's kind; a refusal is the form again with the reason (400), nothing made. */
async function create(page: ConsolePage) {
  const kind = page.field('kind');
  if (!isAppKind(kind)) return showKinds(page, { error: page.t.errorAppKind, status: 400 });
  const projectId = ids(page).id;
  const { appType } = APP_KINDS[kind];
  const form: NewAppForm = {
    name: page.field('name'),
    redirectUris: page.field('redirectUris'),
    postLogoutRedirectUris: page.field('postLogoutRedirectUris'),
    devMode: page.field('devMode') === 'on',
    authMethod: page.field('authMethod') || NEW_API_APP_AUTH_METHOD,
  };
  const uris = { redirectUris: lines(form.redirectUris!), postLogoutRedirectUris: lines(form.postLogoutRedirectUris!) };
  const problems = appType !== undefined && redirectProblems(page.t, { ...uris, devMode: form.devMode!, appType });
  if (problems) return showForm(page, kind, form, { error: page.t.appNotCreated, status: 400, problems });
  if (appType === undefined && !isApiAuthMethod(form.authMethod!))
    return showForm(page, kind, form, { error: page.t.errorApiAuthMethod, status: 400 });
  let added: { appId: string; clientId: string; clientSecret: string };
  try {
    added =
      appType === undefined
        ? await page.run(M.method.addAPIApp, {
            projectId,
            name: form.name!,
            authMethodType: API_AUTH_METHODS.indexOf(form.authMethod as (typeof API_AUTH_METHODS)[number]),
          })
        : await page.run(M.method.addOIDCApp, {
            projectId,
            name: form.name!,
            ...uris,
            ...newOidcAppSettings(appType),
            devMode: form.devMode!,
          });
  } catch (error) {
    return showForm(page, kind, form, { error: inputError(error, page.t), status: 400 });
  }
  return shownOnce(page, form.name!, added);
}

export function registerNewApp(router: ConsoleRouter): void {
  router.get('/projects/:id/apps/new', async (page) => {
    const type = String((page.request.query as { type?: unknown }).type ?? '');
    if (!isAppKind(type)) return showKinds(page);
    // the project is read first: another org's project is "not found" on this step too
    await page.run(M.method.getProjectByID, { id: ids(page).id });
    return showForm(page, type);
  });
  router.post('/projects/:id/apps', create);
}
