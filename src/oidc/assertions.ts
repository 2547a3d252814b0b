// What both ways of checking a one-time assertion share: client assertions at Gatehouse's own endpoints
// (fast/client-auth.ts) and the JWT-profile grant of machine users (machine-token-issuer.ts).

/** oidc-provider's default clock tolerance, seconds. */
export const CLOCK_TOLERANCE = 15;

/** Marks a one-time assertion as used; false when it was used before (adapter.ts, atomic across instances). */
export type ClaimOnce = (issuer: string, jti: string, expiresAt: number) => Promise<boolean>;
