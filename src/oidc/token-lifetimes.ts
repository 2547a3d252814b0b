// Lifetimes that oidc-provider (provider/provider.ts) and the token endpoint's fast path (fast/user-grants.ts) must
// compute alike.
import type { Config } from '../config.ts';

/** Seconds a refresh token lives: its idle lifetime, capped by the absolute lifetime of its chain, counted from the
 *  first token (iiat). */
export function refreshTokenTtl(ttl: Config['ttl'], chainStart: number | undefined): number {
  const now = Math.floor(Date.now() / 1000);
  return Math.max(1, Math.min(ttl.refreshTokenIdle, (chainStart ?? now) + ttl.refreshTokenAbsolute - now));
}
