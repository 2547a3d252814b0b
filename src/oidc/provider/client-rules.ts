// Per-provider patches of oidc-provider's Client: hashed secrets, ZITADEL's error for a response type the app may not
// use, no grant at the token endpoint for the built-in clients, and http redirect URIs for implicit apps in dev mode.
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { SecretBox } from '../../platform/secrets.ts';
import { isBuiltInClient } from '../account-client.ts';

export function patchClients(provider: Provider, secrets: SecretBox): void {
  const Client = provider.Client as unknown as {
    prototype: Record<string, unknown>;
    Schema: { prototype: Record<string, unknown> };
  };

  // Client and machine secrets are stored as keyed hashes and compared in constant time (no timing oracle).
  Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    return typeof this.clientSecret === 'string' && secrets.verifySecret(actual, this.clientSecret);
  };

  // Only called by the authorization endpoint's response type check: ZITADEL answers unauthorized_client.
  Client.prototype.responseTypeAllowed = function responseTypeAllowed(this: { responseTypes: string[] }, type: string) {
    if (!this.responseTypes.includes(type))
      throw new errors.UnauthorizedClient('the client may not use this response_type');
    return true;
  };

  // The built-in clients' codes are never redeemed (account-client.ts), so no grant type is theirs: the token endpoint
  // refuses every grant (authorization_code, refresh_token, client_credentials, JWT profile) with unauthorized_client
  // (responses.ts) after client authentication and before any grant handler runs, so nothing is issued
  // (RFC 6749 §4.1.3: a code gives tokens only to the client that may redeem it). The library's client schema adds
  // authorization_code to any client with response type code, hence this rule instead of metadata. (The library also
  // asks it which tokens a revoked grant takes: their codes are then left to expire, redeeming nothing.)
  const grantTypeAllowed = Client.prototype.grantTypeAllowed as (this: { clientId: string }, type: string) => boolean;
  Client.prototype.grantTypeAllowed = function builtInClientsRedeemNothing(this: { clientId: string }, type: string) {
    return !isBuiltInClient(this.clientId) && grantTypeAllowed.call(this, type);
  };

  // ZITADEL's dev mode allows http redirect URIs for implicit apps too; outside dev mode the library's rule stands.
  const DEV_MODE_RELAXED = new Set(['implicit-force-https', 'implicit-forbid-localhost']);
  Client.Schema.prototype.invalidate = function invalidate(
    this: { dev_mode?: boolean },
    message: string,
    code?: string,
  ) {
    if (this.dev_mode && code && DEV_MODE_RELAXED.has(code)) return;
    throw new errors.InvalidClientMetadata(message);
  };
}
