// The history methods: ListUserChanges, ListAppChanges, ListOrgChanges, ListProjectChanges, read from the
// event log, for objects of the org in context (others are 404 like every read).
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ChangeSchema } from '@zitadel/proto/zitadel/change_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { getApp } from '../../apps/service.ts';
import { listChanges, type ChangePage, type ChangeRow } from '../../events/changes.ts';
import { listRecentChanges, type RecentChange } from '../../events/recent.ts';
import { getProject } from '../../projects/service.ts';
import { getOrgUser } from '../../users/service.ts';
import { changePageOf } from '../list-query.ts';
import { iamOwner, operation, orgOwner, projectRead, type Operation, type Read } from '../operation.ts';

const M = ManagementService.method;

function changeMessage(c: ChangeRow): MessageInitShape<typeof ChangeSchema> {
  return {
    changeDate: timestampFromDate(c.created_at),
    // ZITADEL's translation key of the event type; the type itself stands in for the translation
    eventType: { key: `EventTypes.${c.event_type}`, localizedMessage: c.event_type },
    sequence: BigInt(c.sequence),
    editorId: c.creator,
    editorDisplayName: c.editor_name ?? '',
    editorPreferredLoginName: c.editor_login_name ?? '',
    resourceOwnerId: c.resource_owner,
  };
}

/** The newest changes across the instance (the console's overview for its owner): v1 has ListEvents for this, but
 *  without the changed objects' names, which the overview shows and links. */
export const recentInstanceChangesRead = ({ db }: ManagementDeps): Read<{ limit: number }, RecentChange[]> => ({
  permission: iamOwner,
  handle: (_caller, req) => listRecentChanges(db, null, req.limit),
});

/** The newest changes of the org in context, every object it owns (an org owner's overview; ListOrgChanges has the
 *  org's own events only). */
export const recentOrgChangesRead = ({ db }: ManagementDeps): Read<{ limit: number }, RecentChange[]> => ({
  permission: orgOwner,
  handle: (caller, req) => listRecentChanges(db, caller.orgId, req.limit),
});

export function changeOperations({ db }: ManagementDeps): Operation[] {
  // the event log's page of one object's events, as the four methods answer it
  const changesOf = async (aggregate: Parameters<typeof listChanges>[1], page: ChangePage) => ({
    result: (await listChanges(db, aggregate, page)).map(changeMessage),
  });
  return [
    operation({
      method: M.listUserChanges,
      permission: orgOwner,
      async handle(caller, req) {
        const page = changePageOf(req.query, 'ListUserChangesRequest');
        const user = await getOrgUser(db, { orgId: caller.orgId, userId: req.userId });
        return changesOf({ type: 'user', id: user.id }, page);
      },
    }),
    operation({
      method: M.listAppChanges,
      permission: projectRead,
      async handle(caller, req) {
        const page = changePageOf(req.query, 'ListAppChangesRequest');
        const app = await getApp(db, { orgId: caller.orgId, projectId: req.projectId, appId: req.appId });
        return changesOf({ type: 'project', id: app.project_id, appId: app.id }, page);
      },
    }),
    operation({
      method: M.listOrgChanges,
      permission: orgOwner,
      async handle(caller, req) {
        const page = changePageOf(req.query, 'ListOrgChangesRequest');
        return changesOf({ type: 'org', id: caller.orgId }, page);
      },
    }),
    operation({
      method: M.listProjectChanges,
      permission: projectRead,
      async handle(caller, req) {
        const page = changePageOf(req.query, 'ListProjectChangesRequest');
        const project = await getProject(db, caller.orgId, req.projectId);
        return changesOf({ type: 'project', id: project.id }, page);
      },
    }),
  ];
}
