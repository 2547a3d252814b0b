// Token audience, as ZITADEL sets it: the client, its project, projects requested by scope and, with the management
// scope, the management API. Introspection answers active only to a caller whose client ID or project is in it.
import { MANAGEMENT_API_SCOPE, requestedProjects } from './scopes.ts';

export interface AudienceClient {
  clientId: string;
  project_id?: string;
}

export function tokenAudience(
  client: AudienceClient,
  scopes: ReadonlySet<string>,
  managementAudience: string,
): string[] {
  const aud = [client.clientId];
  if (client.project_id) aud.push(client.project_id);
  aud.push(...requestedProjects(scopes));
  if (scopes.has(MANAGEMENT_API_SCOPE)) aud.push(managementAudience);
  return [...new Set(aud)];
}

export function inAudience(caller: AudienceClient, aud: readonly string[]): boolean {
  return aud.includes(caller.clientId) || (caller.project_id !== undefined && aud.includes(caller.project_id));
}
