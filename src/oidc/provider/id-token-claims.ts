// Role, metadata and org claims in the ID tokens oidc-provider issues: the org scope claims and metadata always (as
// ZITADEL's userinfo does), the roles when the app has idTokenRoleAssertion. Their names are dynamic (one per project),
// which the provider's scope-to-claims mask cannot list, so they go in as the ID token's extra claims, which it keeps.
import type Provider from 'oidc-provider';
import type { IssuedClaims } from '../token-claims.ts';

export function installIdTokenClaims(provider: Provider, claims: IssuedClaims): void {
  type IdToken = InstanceType<Provider['IdToken']> & {
    available: { sub?: string };
    scope?: string;
    client: Record<string, unknown>;
    extra: Record<string, unknown>;
  };
  const proto = provider.IdToken.prototype as unknown as { issue(this: IdToken, o: { use: string }): Promise<string> };
  const original = proto.issue;
  proto.issue = async function issue(this: IdToken, options: { use: string }) {
    if (options?.use === 'idtoken' && this.available.sub) {
      const scopes = new Set(String(this.scope ?? '').split(' '));
      Object.assign(this.extra, await claims(this.available.sub, scopes, this.client, 'id_token'));
    }
    return original.call(this, options);
  };
}
