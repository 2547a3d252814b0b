// An app's redirect URIs that sign-in will not accept: an http address outside development mode (other than a native
// app's loopback address, RFC 8252 §7.3). The API saves such an app and reports it (AddOIDCApp's noneCompliant), but
// the provider never matches the address, so the app looks ready and cannot be used. The console refuses to save it,
// names the addresses next to their field and offers development mode; the app page shows an app made so elsewhere
// the same way.
import type { AppType } from '../apps/queries.ts';
import { usableRedirectUri } from '../apps/schema.ts';
import type { Texts } from '../views/i18n.ts';
import { format } from '../views/i18n.ts';

export interface RedirectSettings {
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  devMode: boolean;
  appType: AppType;
}

/** What keeps each redirect field from working, in the page's words; none when every address is accepted. */
export interface RedirectProblems {
  redirectUris?: string | undefined;
  postLogoutRedirectUris?: string | undefined;
}

export function redirectProblems(t: Texts, settings: RedirectSettings): RedirectProblems | undefined {
  const problem = (uris: string[]) => {
    const refused = uris.filter((uri) => !usableRedirectUri(uri, settings));
    return refused.length ? format(t.httpRedirectUri!, { uris: refused.join(', ') }) : undefined;
  };
  const found = {
    redirectUris: problem(settings.redirectUris),
    postLogoutRedirectUris: problem(settings.postLogoutRedirectUris),
  };
  return found.redirectUris || found.postLogoutRedirectUris ? found : undefined;
}
