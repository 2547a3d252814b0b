// What the console lets a person see and do, and the one way it changes anything: every
// read and write runs a management operation of the API's registry (management/plugin.ts), with the same
// permission check (management/auth.ts), the same validation and the same service call, so an object made here is
// the one the API would make, with the same events.
//
// The permission helper for route modules: `viewer.canManage` says whether a person gets the console at all;
// `run(viewer, method, orgId, request)` performs an operation for the org in context and throws the API's
// AppError (403 for an org the viewer may not act on, 404 for another org's ids). Pages never read the database
// themselves.
import {
  create,
  type Message,
  type DescMessage,
  type DescMethod,
  type DescMethodUnary,
  type MessageInitShape,
} from '@bufbuild/protobuf';
import type { MessageShape } from '@bufbuild/protobuf';
import type { Db } from '../platform/db.ts';
import { actsForOrg, authorizePrincipal, projectMemberships } from '../management/auth.ts';
import { orgOwner, type Caller, type Operation, type Permission, type Principal } from '../management/operation.ts';
import { validatedOnce } from '../management/validate.ts';
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

/**
 * authorizePrincipal, once per role and org in a request where the answer depends on nothing else: an `org`
 * permission, and a `project` one the viewer holds through the org (ORG_OWNER or IAM_OWNER); a project member's
 * check reads the request, so it runs each time. A refusal is thrown to every operation that asks again.
 */
function authorize(
  db: Db,
  viewer: Viewer,
  permission: Permission,
  orgId: string,
  request: () => Message,
): Promise<Caller> {
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
}

/**
 * A read no API operation serves (the overview's count of an org's apps: v1 lists apps per project only), behind
 * the permission of the org's operations: its ORG_OWNER or IAM_OWNER, checked as for them (and with them, once per
 * request). The read gets the org the check allowed.
 */
export async function readAsOrgOwner<T>(
  db: Db,
  viewer: Viewer,
  orgId: string,
  read: (db: Db, orgId: string) => Promise<T>,
): Promise<T> {
  const noRequest = (): Message => {
    throw new Error('an org permission reads no request');
  };
  const caller = await authorize(db, viewer, orgOwner, orgId, noRequest);
  return read(db, caller.orgId);
}

/** Runs operations of the registry as the viewer: authorize, validate, handle (management/invoke.ts's order). */
export function createRun(db: Db, operations: Operation[]): Run {
  const byMethod = new Map<DescMethod, Operation>(operations.map((op) => [op.method, op]));
  return async (viewer, method, orgId, init) => {
    const op = byMethod.get(method);
    if (!op) throw new Error(`${method.name} is not served`);
    const request = validatedOnce(method.input, () => create(method.input, init));
    const caller = await authorize(db, viewer, op.permission, orgId, request);
    return create(method.output, (await op.handle(caller, request())) as MessageInitShape<typeof method.output>);
  };
}
