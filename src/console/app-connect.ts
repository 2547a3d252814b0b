// What an app's developer needs to connect it, on the app's page: the issuer, the discovery document's address
// (OpenID Connect Discovery 1.0 §4: the issuer followed by /.well-known/openid-configuration) and the endpoints the
// app calls, named as the discovery document names them and taken from the running provider (its issuer and routes),
// so the page and the document cannot disagree; the client ID and redirect URIs; and a block to copy. The client
// secret is never on this page: it was shown once, and "Regenerate secret" makes a new one.
import { html } from '../views/html.ts';
import type { AppKind } from './app-kinds.ts';
import type { ConsolePage } from './page.ts';

/** The discovery document's names of the endpoints each kind of app calls, and the provider's routes that serve them:
 *  an API only introspects tokens (RFC 7662); the others sign people in and out. */
const ENDPOINTS = {
  signIn: [
    ['authorization_endpoint', 'authorization'],
    ['token_endpoint', 'token'],
    ['userinfo_endpoint', 'userinfo'],
    ['end_session_endpoint', 'end_session'],
  ],
  api: [['introspection_endpoint', 'introspection']],
} as const;

export interface ConnectedApp {
  kind: AppKind;
  clientId: string;
  redirectUris: string[];
  /** How it authenticates: a secret (client_secret_basic), a key (private_key_jwt) or PKCE alone (none). */
  secret: 'secret' | 'key' | 'none';
}

function connectionValues(page: ConsolePage, app: ConnectedApp) {
  const provider = page.deps.web.oidc.provider();
  const issuer = provider.issuer;
  const endpoints = (app.kind === 'api' ? ENDPOINTS.api : ENDPOINTS.signIn).map(
    ([name, route]) => [name, provider.urlFor(route)] as const,
  );
  return { issuer, discovery: `${issuer}/.well-known/openid-configuration`, endpoints };
}

/** The block to copy, environment-style: the names most OIDC libraries' examples read, and a note on the secret. */
function configBlock(page: ConsolePage, app: ConnectedApp, values: ReturnType<typeof connectionValues>): string {
  const { t } = page;
  const note = { secret: t.connectSecretNote, key: t.connectKeyNote, none: t.connectPkceNote }[app.secret];
  const introspection = values.endpoints.find(([name]) => name === 'introspection_endpoint');
  return [
    `# ${note}`,
    `ISSUER=${values.issuer}`,
    `CLIENT_ID=${app.clientId}`,
    ...(app.redirectUris[0] ? [`REDIRECT_URI=${app.redirectUris[0]}`] : []),
    ...(introspection ? [`INTROSPECTION_ENDPOINT=${introspection[1]}`] : []),
  ].join('\n');
}

export function ConnectSection({ page, app }: { page: ConsolePage; app: ConnectedApp }) {
  const { t } = page;
  const values = connectionValues(page, app);
  const block = configBlock(page, app, values);
  return html`<section aria-labelledby="connect">
    <h2 id="connect">${t.connectTitle}</h2>
    <p class="lead">${t.connectLead}</p>
    <dl class="facts connect">
      <dt><code>issuer</code></dt>
      <dd id="connect-issuer">${values.issuer}</dd>
      <dt>${t.discoveryUrl}</dt>
      <dd><a id="connect-discovery" href=${values.discovery}>${values.discovery}</a></dd>
      ${values.endpoints.map(
        ([name, value]) => html`<dt><code>${name}</code></dt>
          <dd id=${`connect-${name}`}>${value}</dd>`,
      )}
      <dt>${t.clientId}</dt>
      <dd id="client-id">${app.clientId}</dd>
      ${
        app.kind !== 'api' &&
        html`<dt>${t.redirectUris}</dt>
        <dd id="connect-redirect-uris">${app.redirectUris.length ? app.redirectUris.join(', ') : t.none}</dd>`
      }
    </dl>
    <div class="field">
      <label for="connect-config">${t.connectConfig}</label>
      <div class="copy-row block">
        <textarea id="connect-config" readonly wrap="off" rows=${block.split('\n').length + 1}>${block}</textarea>
        <button type="button" class="secondary" data-copy="connect-config" data-copied=${t.copied} hidden>
          ${t.copy}
        </button>
      </div>
    </div>
  </section>`;
}
