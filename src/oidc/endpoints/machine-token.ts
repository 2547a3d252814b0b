// The token endpoint's fast path for machine grants (issue 8: <= 2 queries for client_credentials, <= 3 for the
// JWT profile): a request that names an active machine user with valid credentials is answered here, from one read
// of the user and one write of the token. Anything else (errors, apps, unusual requests) returns undefined and goes
// to oidc-provider, whose grant handlers (grants.ts) issue the same tokens or the precise error.
import { decodeJwt } from 'jose';
import type { Db } from '../../platform/db.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import { findActiveMachine } from '../../users/machine-service.ts';
import { JWT_BEARER } from '../clients.ts';
import { filterMachineScopes } from '../scopes.ts';
import { issueMachineToken, verifyServiceAssertion, type MachineTokenDeps, type TokenResponse } from '../machine-tokens.ts';
import { presentedClient } from './client-auth.ts';

export interface MachineTokenFastPathDeps extends MachineTokenDeps {
  db: Db;
  secrets: SecretBox;
}

/** The grant's response and the client it was issued to, or undefined to let the provider answer. */
export type FastTokenResult = { body: TokenResponse; clientId: string } | undefined;

export function machineTokenFastPath(deps: MachineTokenFastPathDeps) {
  return async function serve(form: URLSearchParams, authorization: string | undefined): Promise<FastTokenResult> {
    if (new Set(form.keys()).size !== [...form.keys()].length) return undefined; // repeated parameters: the provider's error
    const scope = form.get('scope');
    if (!scope) return undefined;
    switch (form.get('grant_type')) {
      case 'client_credentials': return clientCredentials(deps, form, authorization, scope);
      case JWT_BEARER: return jwtProfile(deps, form, authorization, scope);
      default: return undefined;
    }
  };
}

async function clientCredentials(deps: MachineTokenFastPathDeps, form: URLSearchParams, authorization: string | undefined, scope: string): Promise<FastTokenResult> {
  let client;
  try {
    client = presentedClient(form, authorization);
  } catch {
    return undefined;
  }
  if (client.method !== 'basic' && client.method !== 'post') return undefined;
  const user = await findActiveMachine(deps.db, { userName: client.clientId });
  if (!user?.secret_hash || !deps.secrets.verifySecret(client.secret, user.secret_hash)) return undefined;
  const body = await issueMachineToken(deps, { user, clientId: client.clientId, scope: filterMachineScopes(scope), grantType: 'client_credentials', withIdToken: false });
  return { body, clientId: client.clientId };
}

async function jwtProfile(deps: MachineTokenFastPathDeps, form: URLSearchParams, authorization: string | undefined, scope: string): Promise<FastTokenResult> {
  // RFC 7523 §2.1 without client authentication (compat.md §6): the client is the assertion's issuer
  if (authorization !== undefined || form.has('client_id') || form.has('client_assertion') || form.has('client_secret')) return undefined;
  const assertion = form.get('assertion');
  let iss: string | undefined;
  try {
    iss = decodeJwt(assertion ?? '').iss;
  } catch {
    return undefined;
  }
  if (!assertion || !iss) return undefined;
  const user = await findActiveMachine(deps.db, { id: iss });
  if (!user) return undefined;
  try {
    await verifyServiceAssertion(deps, assertion, user.id, { keys: user.jwks });
  } catch {
    return undefined;
  }
  const body = await issueMachineToken(deps, { user, clientId: user.id, scope: filterMachineScopes(scope), grantType: JWT_BEARER, withIdToken: true });
  return { body, clientId: user.id };
}
