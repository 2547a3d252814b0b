// What the console lets a person see and do, and the one way it changes anything: the console is a client of the
// management pipeline (management/invoke.ts). Every read and write runs an operation of the API's registry
// (management/plugin.ts), or one of its reads no v1 method serves, with the same permission check, the same
// validation and the same service call, so an object made here is the one the API would make, with the same
// events. The console's session stands in for the API's bearer token, the page's org for its x-zitadel-orgid header.
//
// For route modules: `viewer.canManage` says whether a person gets the console at all; `run(viewer, method, orgId,
// request)` performs an operation for the org in context and `read(viewer, read, orgId, request)` a read, each
// throwing the API's AppError (403 for an org the viewer may not act on, 404 for another org's ids). Pages never
// read the database themselves.
import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import type { Db } from '../platform/db.ts';
import { actsForOrg, authorizePrincipal, projectMemberships } from '../management/auth.ts';
import { createInvoke, createInvokeRead, type Authorize } from '../management/invoke.ts';
import type { Caller, Operation, Principal, Read } from '../management/operation.ts';
import { operationsByMethod } from '../management/plugin.ts';
import { rolesOf } from '../members/service.ts';
import { IAM_OWNER, ORG_OWNER } from '../members/roles.ts';
import type { UserRow } from '../users/lookup.ts';

export interface Viewer {
  principal: Principal;
  isIamOwner: boolean;
  /** The organizations whose owner the viewer is (all of them are reachable for an IAM_OWNER via ListOrgs). */
  ownedOrgIds: string[];
  /** The orgs of the projects the viewer is PROJECT_OWNER(_VIEWER) of: it sees those projects there. */
  projectOrgIds: string[];
  /** Whether the viewer holds any management role the console serves; else the "no access" page. */
  canManage: boolean;
  /** The org permissions checked for this request, by role and org: a page runs several operations on one org
   *  (the user page six), and the org's existence need not be read again within one request. */
  orgChecks: Map<string, Promise<Caller>>;
}

/** The viewer the signed-in user is (active: the console session's read checks it, console/session.ts). */
export async function viewerOf(db: Db, user: Pick<UserRow, 'id' | 'org_id'>): Promise<Viewer> {
  const userId = user.id;
  const roles = await rolesOf(db, userId);
  const isIamOwner = roles.instance.has(IAM_OWNER);
  const ownedOrgIds = [...roles.orgs].filter(([, r]) => r.has(ORG_OWNER)).map(([id]) => id);
  const projectOrgIds = [...new Set([...projectMemberships(roles).values()].map((m) => m.orgId))];
  return {
    principal: { userId, orgId: user.org_id, roles },
    isIamOwner,
    ownedOrgIds,
    projectOrgIds,
    canManage: isIamOwner || ownedOrgIds.length > 0 || projectOrgIds.length > 0,
    orgChecks: new Map(),
  };
}

/** Whether the viewer manages the org itself (its ORG_OWNER, or IAM_OWNER), not only projects in it. */
export const managesOrg = (viewer: Viewer, orgId: string) => viewer.isIamOwner || viewer.ownedOrgIds.includes(orgId);

/** The org a page acts on: the one asked for (checked by every operation), else the viewer's own when they own
 *  it, else the first they own, else the first holding one of their projects. */
export function orgInContext(viewer: Viewer, asked: string | undefined): string {
  if (asked && /^[\w-]{1,64}$/.test(asked)) return asked;
  const own = viewer.principal.orgId;
  if (managesOrg(viewer, own)) return own;
  return viewer.ownedOrgIds[0] ?? (viewer.projectOrgIds.includes(own) ? own : (viewer.projectOrgIds[0] ?? own));
}

export type Run = <I extends DescMessage, O extends DescMessage>(
  viewer: Viewer,
  method: DescMethodUnary<I, O>,
  orgId: string,
  request: MessageInitShape<I>,
) => Promise<MessageShape<O>>;

export type RunRead = <R, T>(viewer: Viewer, read: Read<R, T>, orgId: string, request: R) => Promise<T>;

/** What the console presents to the pipeline: the signed-in viewer, and the org the page acts on. */
interface ViewerCredentials {
  viewer: Viewer;
  orgId: string;
}

/**
 * The viewer's permission check (management/auth.ts's, for a principal the console's session signed in), once per
 * role and org in a request where the answer depends on nothing else: an `org` permission, and a `project` one the
 * viewer holds through the org (ORG_OWNER or IAM_OWNER); a project member's check reads the request, so it runs each
 * time. A refusal is thrown to every operation that asks again.
 */
function viewerAuthorizer(db: Db): Authorize<ViewerCredentials> {
  return (permission, { viewer, orgId }, request) => {
    const byOrg =
      permission.kind === 'org' ||
      (permission.kind === 'project' && actsForOrg(viewer.principal, permission.role, orgId));
    if (!byOrg) return authorizePrincipal(db, viewer.principal, permission, orgId, request);
    const key = `${permission.role} ${orgId}`;
    let check = viewer.orgChecks.get(key);
    if (!check) {
      check = authorizePrincipal(db, viewer.principal, permission, orgId, request);
      viewer.orgChecks.set(key, check);
    }
    return check;
  };
}

/** Runs the registry's operations and the reads as the viewer, through the management pipeline. */
export function createRunners(db: Db, operations: readonly Operation[]): { run: Run; read: RunRead } {
  const byMethod = operationsByMethod(operations);
  const authorize = viewerAuthorizer(db);
  const invoke = createInvoke(authorize);
  const invokeRead = createInvokeRead(authorize);
  return {
    async run(viewer, method, orgId, init) {
      const op = byMethod.get(method);
      if (!op) throw new Error(`${method.name} is not served`);
      const output = await invoke(op, { viewer, orgId }, () => create(method.input, init));
      return output as MessageShape<typeof method.output>;
    },
    read: (viewer, read, orgId, request) => invokeRead(read, { viewer, orgId }, request),
  };
}
