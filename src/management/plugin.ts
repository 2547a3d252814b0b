// The management API: the v1 Auth, Admin and Management services from @zitadel/proto, served as REST JSON, gRPC
// and gRPC-Web, and to the console, through one pipeline (invoke.ts: auth.ts → validate.ts → handlers).
import { idpOperations } from './handlers/idps.ts';
import type { DescMethod } from '@bufbuild/protobuf';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { FastifyInstance } from 'fastify';
import type { ManagementDeps } from './deps.ts';
import { createAuthorizer, type VerifyBearer } from './auth.ts';
import { createInvoke } from './invoke.ts';
import type { Operation } from './operation.ts';
import { registerRestGateway } from './rest-gateway.ts';
import { registerRpc } from './rpc.ts';
import { projectOperations } from './handlers/projects.ts';
import { projectGrantOperations } from './handlers/project-grants.ts';
import { userGrantOperations } from './handlers/user-grants.ts';
import { userMetadataOperations } from './handlers/user-metadata.ts';
import { userLocksRead, userOperations, userSessionsRead } from './handlers/users.ts';
import { machineUserOperations } from './handlers/machine-users.ts';
import { personalAccessTokenOperations } from './handlers/personal-access-tokens.ts';
import { appOperations, orgAppCountRead } from './handlers/apps.ts';
import { memberOperationLists } from './handlers/members.ts';
import { orgOperations } from './handlers/orgs.ts';
import { changeOperations, recentInstanceChangesRead, recentOrgChangesRead } from './handlers/changes.ts';
import { eventOperations } from './handlers/events.ts';
import { passwordOperations } from './handlers/passwords.ts';
import { emailOperations } from './handlers/emails.ts';
import { passkeyOperations } from './handlers/passkeys.ts';
import { authFactorOperations } from './handlers/auth-factors.ts';
import { loginPolicyOperations } from './handlers/login-policy.ts';
import { lockoutPolicyOperations } from './handlers/lockout-policy.ts';

export const MANAGEMENT_SERVICES = [AuthService, AdminService, ManagementService] as const;

export interface ManagementOptions {
  verifyBearer: VerifyBearer;
  /** Largest request message accepted on every encoding. */
  bodyLimit: number;
}

/** Every implemented operation: the registry the transports serve and docs/api.md's methods table is generated from
 *  (methods-table.ts). */
export function managementOperations(deps: ManagementDeps): Operation[] {
  return [
    ...projectOperations(deps),
    ...projectGrantOperations(deps),
    ...userGrantOperations(deps),
    ...userMetadataOperations(deps),
    ...userOperations(deps),
    ...machineUserOperations(deps),
    ...personalAccessTokenOperations(deps),
    ...appOperations(deps),
    ...memberOperationLists(deps),
    ...orgOperations(deps),
    ...changeOperations(deps),
    ...eventOperations(deps),
    ...passwordOperations(deps),
    ...emailOperations(deps),
    ...passkeyOperations(deps),
    ...authFactorOperations(deps),
    ...loginPolicyOperations(deps),
    ...lockoutPolicyOperations(deps),
    ...idpOperations(deps),
  ];
}

/** The reads no v1 method serves that the console shows, each behind a permission like an operation's. */
export function managementReads(deps: ManagementDeps) {
  return {
    orgAppCount: orgAppCountRead(deps),
    userSessions: userSessionsRead(deps),
    userLocks: userLocksRead(deps),
    recentInstanceChanges: recentInstanceChangesRead(deps),
    recentOrgChanges: recentOrgChangesRead(deps),
  };
}

export type ManagementReads = ReturnType<typeof managementReads>;

/** The operations by the method each serves. */
export function operationsByMethod(list: readonly Operation[]): ReadonlyMap<DescMethod, Operation> {
  const operations = new Map<DescMethod, Operation>();
  for (const op of list) {
    // two handler lists serving one method would leave one of them silently unused
    if (operations.has(op.method)) throw new Error(`${op.method.parent.typeName}.${op.method.name} has two operations`);
    operations.set(op.method, op);
  }
  return operations;
}

/** Serves every method of MANAGEMENT_SERVICES; those with an operation in a handler list are implemented. */
export function registerManagement(app: FastifyInstance, deps: ManagementDeps, options: ManagementOptions): void {
  const operations = operationsByMethod(managementOperations(deps));
  const invoke = createInvoke(createAuthorizer(deps.db, options.verifyBearer));
  registerRestGateway(app, MANAGEMENT_SERVICES, operations, invoke);
  registerRpc(app, MANAGEMENT_SERVICES, operations, invoke, options.bodyLimit);
}
