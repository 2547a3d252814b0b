// The account page's own client (issue 16): /ui/account signs people in through the authorization endpoint like any
// application, so the login pages, lockout, "change required" and SSO apply unchanged. A public client with PKCE,
// built in (not stored): its only redirect URI is the account page's callback on this issuer, and sign-out may
// return to the issuer's home page.
import type { AdapterPayload } from 'oidc-provider';

export const ACCOUNT_CLIENT_ID = 'gatehouse-account';
export const ACCOUNT_CALLBACK_PATH = '/ui/account/callback';

export function accountClientMetadata(issuer: string): AdapterPayload {
  return {
    client_id: ACCOUNT_CLIENT_ID,
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    redirect_uris: [`${issuer}${ACCOUNT_CALLBACK_PATH}`],
    post_logout_redirect_uris: [`${issuer}/`],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    access_token_type: 'opaque',
    gatehouse_kind: 'oidc',
  };
}
