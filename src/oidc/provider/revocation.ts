// Revocation rules of ZITADEL's interface (RFC 7009) on top of oidc-provider's endpoint (features.revocation's
// allowedPolicy, provider.ts).
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { JWT_BEARER } from '../protocol.ts';

type Client = InstanceType<Provider['Client']> & { machine_user_id?: string };
type Token = { kind: string; clientId?: string; accountId?: string; gty?: string; destroy(): Promise<void> };

const MACHINE_GRANTS = new Set(['client_credentials', JWT_BEARER]);

/** Revoking an access token kills only it; a refresh token takes its grant's tokens (oidc-provider default). */
export async function revocationAllowed(_ctx: KoaContextWithOIDC, caller: Client, token: Token): Promise<boolean> {
  // A machine user's token is its own, never that of an app whose client ID equals the machine user's name (names an
  // older version accepted; access-tokens.ts).
  const othersMachineToken = MACHINE_GRANTS.has(token.gty ?? '') && caller.machine_user_id !== token.accountId;
  if (token.clientId !== caller.clientId || othersMachineToken) {
    const error = new errors.InvalidClient('the token was issued to another client') as Error & {
      status: number;
      statusCode: number;
    };
    error.status = error.statusCode = 401;
    throw error;
  }
  if (token.kind === 'RefreshToken') return true;
  await token.destroy();
  return false; // "do not revoke the grant"; the answer is 200 all the same
}
