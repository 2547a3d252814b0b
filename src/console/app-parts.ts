// What the app pages share (apps.ts: an app's page; app-new.ts: making one): their links, the redirect URIs field's
// lines, the "…in development mode" button, and the page that shows a new client secret exactly once.
import { html } from '../views/html.ts';
import { KeyFileLink, ShownOnce } from '../views/console/components.ts';
import { format } from '../views/i18n.ts';
import type { RedirectProblems } from './app-redirects.ts';
import type { ConsolePage } from './page.ts';

export const ids = (page: ConsolePage) => page.request.params as { id: string; appId?: string };
export const projectUrl = (page: ConsolePage, rest = '') =>
  page.href(`/ui/console/projects/${encodeURIComponent(ids(page).id)}${rest}`);
export const appUrl = (page: ConsolePage, appId: string, rest = '') =>
  projectUrl(page, `/apps/${encodeURIComponent(appId)}${rest}`);

/** The client ID of an OIDC or API app ('' for another kind). */
export const clientIdOf = (config: { case: string | undefined; value?: unknown } | undefined) =>
  config?.case === 'oidcConfig' || config?.case === 'apiConfig' ? (config.value as { clientId: string }).clientId : '';

/** A redirect URIs field's addresses: one per line, blank lines left out. */
export const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

export interface FormFlash {
  notice?: string | undefined;
  error?: string | undefined;
  status?: number;
  /** Redirect URIs sign-in would refuse, by field: the form offers development mode. */
  problems?: RedirectProblems | undefined;
}

/** A second way to send a form whose redirect URIs need development mode: with it turned on. After the form's own
 *  button, so that Enter in a field still sends the form as filled in. */
export const WithDevMode = ({ label }: { label: string | undefined }) =>
  html`<button type="submit" class="secondary" name="devMode" value="on" id="with-dev-mode">${label}</button>`;

/** The answer to a creation or regeneration: the client id, and the secret exactly this once. */
export function shownOnce(
  page: ConsolePage,
  name: string,
  app: { appId: string; clientId: string; clientSecret: string },
) {
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
