// What an implemented management method is: its descriptor, who may call it, and a handler that calls one service
// function. Adding an operation means adding one of these to a handler list (handlers/*.ts); every encoding
// (REST, gRPC, gRPC-Web) serves it through the same authentication, permission check and validation (invoke.ts).
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { Roles } from '../members/service.ts';
import type { HashAdmission } from '../users/passwords.ts';

/** Who may call (compat.md §1): any authenticated user, an instance role, or a role on the org in context
 *  (`x-zitadel-orgid` or the caller's own org; IAM_OWNER may act on every org). */
export type Permission = { kind: 'authenticated' } | { kind: 'instance'; role: string } | { kind: 'org'; role: string };

/** An authenticated caller of the management API (auth.ts). */
export interface Principal {
  userId: string;
  /** The organization the user belongs to. */
  orgId: string;
  roles: Roles;
  /** The project of the app the token was issued to, if any (ListMyProjectOrgs, issue 21). */
  projectId?: string;
}

export interface Caller {
  principal: Principal;
  /** The organization the call acts on: only meaningful for `org` permissions, else the caller's own org. */
  orgId: string;
}

export interface Operation<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> {
  method: DescMethodUnary<I, O>;
  permission: Permission;
  handle(caller: Caller, request: MessageShape<I>): Promise<MessageInitShape<O>>;
}

/** Types an operation by its method's messages; lists of operations hold them untyped. */
export function operation<I extends DescMessage, O extends DescMessage>(op: Operation<I, O>): Operation {
  return op as unknown as Operation;
}

/** Hashing for a call that sets a password (SetUpOrg, ImportHumanUser): through the same bounded queue as the
 *  login pages (issue 26 §6), with the caller in place of a client address, so one token cannot fill the queue. */
export function callerHash(hashing: HashAdmission, caller: Caller): (password: string) => Promise<string> {
  return (password) => hashing.hash(`caller:${caller.principal.userId}`, password);
}
