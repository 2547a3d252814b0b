// oidc-provider's handlers for the machine grants. The token endpoint's fast path serves the usual requests itself
// (fast/token.ts); everything it leaves alone lands here and gets the same tokens (machine-token-issuer.ts) or the
// provider's precise error. Registering the grants also lists them in discovery.
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { JWT_BEARER } from '../protocol.ts';
import { filterMachineScopes } from '../scopes.ts';
import {
  AssertionRejected,
  claimAssertion,
  CredentialsChanged,
  issueMachineToken,
  verifyServiceAssertion,
  type MachineTokenDeps,
  type MachineTokenRequest,
  type VerifiedAssertion,
} from '../machine-token-issuer.ts';

export function registerMachineGrants(provider: Provider, deps: MachineTokenDeps): void {
  provider.registerGrantType(
    JWT_BEARER,
    async (ctx: KoaContextWithOIDC) => {
      const { params, client } = ctx.oidc;
      const assertion = params!.assertion as string | undefined;
      if (!assertion) throw new errors.InvalidRequest("missing required parameter 'assertion'");
      if (!params!.scope) throw new errors.InvalidRequest("missing required parameter 'scope'");
      const user = machineUser(ctx);
      let verified: VerifiedAssertion;
      try {
        verified = await verifyServiceAssertion(
          deps,
          assertion,
          user.id,
          createLocalJWKSet((client!.jwks ?? { keys: [] }) as JSONWebKeySet),
        );
      } catch (error) {
        throw error instanceof AssertionRejected ? new errors.InvalidGrant(error.message) : error;
      }
      if (!(await claimAssertion(deps, user.id, verified)))
        throw new errors.InvalidGrant('assertion has already been used');
      ctx.body = await issue(deps, {
        user,
        grantedOn: { keyId: verified.keyId },
        clientId: client!.clientId,
        scope: filterMachineScopes(String(params!.scope)),
        grantType: JWT_BEARER,
        withIdToken: true,
      });
    },
    ['assertion', 'scope'],
  );

  provider.registerGrantType(
    'client_credentials',
    async (ctx: KoaContextWithOIDC) => {
      const user = machineUser(ctx);
      // required by both machine grants, as in ZITADEL
      if (!ctx.oidc.params!.scope) throw new errors.InvalidRequest("missing required parameter 'scope'");
      const grantedOn = { secretHash: ctx.oidc.client!.clientSecret };
      ctx.body = await issue(deps, {
        user,
        grantedOn,
        clientId: ctx.oidc.client!.clientId,
        scope: filterMachineScopes(String(ctx.oidc.params!.scope)),
        grantType: 'client_credentials',
        withIdToken: false,
      });
    },
    ['scope'],
  );
}

/** The user was deactivated, or its secret or key changed, while the request was under way. */
async function issue(deps: MachineTokenDeps, request: MachineTokenRequest) {
  try {
    return await issueMachineToken(deps, request);
  } catch (error) {
    throw error instanceof CredentialsChanged
      ? new errors.InvalidGrant('the credentials changed while the request was processed')
      : error;
  }
}

/** The machine user behind a client (clients.ts); apps may not use these grants. */
function machineUser(ctx: KoaContextWithOIDC): MachineTokenRequest['user'] {
  const client = ctx.oidc.client as unknown as { machine_user_id?: string; access_token_type?: 'opaque' | 'jwt' };
  if (!client.machine_user_id) throw new errors.UnauthorizedClient('the client may not use this grant type');
  return { id: client.machine_user_id, access_token_type: client.access_token_type ?? 'opaque' };
}
