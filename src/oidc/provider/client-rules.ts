// Per-provider patches of oidc-provider's Client (oidc-provider-findings §4, §5): hashed secrets, the interface's
// error for a response type the app may not use, and http redirect URIs for implicit apps in dev mode.
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { SecretBox } from '../../platform/secrets.ts';

export function patchClients(provider: Provider, secrets: SecretBox): void {
  const Client = provider.Client as unknown as {
    prototype: Record<string, unknown>;
    Schema: { prototype: Record<string, unknown> };
  };

  // Client and machine secrets are stored as keyed hashes and compared in constant time (security.md §21).
  Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    return typeof this.clientSecret === 'string' && secrets.verifySecret(actual, this.clientSecret);
  };

  // Only called by the authorization endpoint's response type check: the interface answers unauthorized_client.
  Client.prototype.responseTypeAllowed = function responseTypeAllowed(this: { responseTypes: string[] }, type: string) {
    if (!this.responseTypes.includes(type))
      throw new errors.UnauthorizedClient('the client may not use this response_type');
    return true;
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
