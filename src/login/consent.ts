// The consent prompt is answered without a page: applications are registered by the instance's administrators
// (first-party), and ZITADEL, whose behaviour Gatehouse follows (compat.md), shows no consent screen either.
import type { InteractionDetails, LoginDeps } from './interaction.ts';

interface MissingGrants {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

export async function grantConsent(deps: LoginDeps, details: InteractionDetails): Promise<string> {
  const provider = deps.oidc.provider();
  const accountId = details.session?.accountId;
  if (!accountId) throw new Error('consent prompt without a signed-in account');
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as MissingGrants;
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}
