// The first-party clients: /ui/account and /ui/console sign people in through the authorization endpoint like any
// application, so the login pages, lockout, "change required" and SSO apply unchanged. Public clients with PKCE, built
// in (not stored): nothing to create at bootstrap or to migrate on an existing install, nothing an admin can remove by
// mistake. Each one's only redirect URI is its callback on this issuer, and sign-out may return to the issuer's home
// page. Their codes are never redeemed (the login has already made the OP session the pages read), so they may use no
// grant at the token endpoint: whoever starts their flow with PKCE values of their own gets a code and no tokens
// (provider/client-rules.ts, edge/routes.ts).
import type { AdapterPayload } from 'oidc-provider';

export const ACCOUNT_CLIENT_ID = 'gatehouse-account';
export const ACCOUNT_CALLBACK_PATH = '/ui/account/callback';
export const CONSOLE_CLIENT_ID = 'gatehouse-console';
export const CONSOLE_CALLBACK_PATH = '/ui/console/callback';

const CALLBACKS: Record<string, string> = {
  [ACCOUNT_CLIENT_ID]: ACCOUNT_CALLBACK_PATH,
  [CONSOLE_CLIENT_ID]: CONSOLE_CALLBACK_PATH,
};

/** Whether the client ID is a built-in client's (no app's: theirs contain `@`; a machine user of that name is
 *  shadowed by it). */
export function isBuiltInClient(clientId: string | undefined): boolean {
  return clientId !== undefined && Object.hasOwn(CALLBACKS, clientId);
}

/** The metadata of a built-in client, or undefined for every other client id. */
export function builtInClientMetadata(clientId: string, issuer: string): AdapterPayload | undefined {
  const callback = isBuiltInClient(clientId) ? CALLBACKS[clientId] : undefined;
  if (!callback) return undefined;
  return {
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    redirect_uris: [`${issuer}${callback}`],
    post_logout_redirect_uris: [`${issuer}/`],
    response_types: ['code'],
    // oidc-provider's schema requires it next to response type code; the token endpoint refuses it all the same
    grant_types: ['authorization_code'],
    access_token_type: 'opaque',
    gatehouse_kind: 'oidc',
  };
}
