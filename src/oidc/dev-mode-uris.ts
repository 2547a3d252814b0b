// Redirect URIs an app has registered but may not use: http addresses outside development mode (apps/schema.ts
// usableRedirectUri). The client keeps them apart from the ones it uses (provider/clients.ts), so that a sign-in or
// sign-out refused for one of them can say why: oidc-provider says only that the address is not registered, while the
// app's page shows it registered. The error page gives the reason (it names the app's own registered address, which
// tells an attacker nothing the app does not show), and the server log names the client.

/** The client property (extra client metadata) holding the registered URIs that need development mode. */
export const URIS_NEEDING_DEV_MODE = 'uris_needing_dev_mode';

/** The parts of oidc-provider's context the check reads. */
export interface RefusalContext {
  oidc?: { client?: unknown; params?: Record<string, unknown> } | undefined;
  query?: Record<string, unknown> | undefined;
}

export interface DevModeRefusal {
  clientId: string;
  /** The parameter that named the address. */
  param: 'redirect_uri' | 'post_logout_redirect_uri';
  uri: string;
}

/** The refused address, when the provider's error refused a registered URI that needs development mode. */
export function devModeRefusal(
  ctx: RefusalContext,
  error: { error?: unknown; error_description?: unknown },
): DevModeRefusal | undefined {
  const client = ctx.oidc?.client as { clientId?: string; [URIS_NEEDING_DEV_MODE]?: string[] } | undefined;
  const needing = client?.[URIS_NEEDING_DEV_MODE];
  if (!client?.clientId || !needing?.length) return undefined;
  // the provider's own words for the two refusals (InvalidRedirectUri; end_session's InvalidRequest)
  const param =
    error.error === 'invalid_redirect_uri'
      ? 'redirect_uri'
      : error.error_description === 'post_logout_redirect_uri not registered'
        ? 'post_logout_redirect_uri'
        : undefined;
  const uri = param && (ctx.oidc?.params ?? ctx.query)?.[param];
  return param && typeof uri === 'string' && needing.includes(uri)
    ? { clientId: client.clientId, param, uri }
    : undefined;
}
