// AdminService.ListEvents (the audit trail, also behind the console's audit page): the event log with
// ZITADEL's filters, for IAM_OWNER only like every admin method. As ZITADEL does: newest first unless
// `asc`, `sequence` keeps the events after it in either order, a limit of 0 or above 1000 is 1000, and the time
// filter is `from` or a `range` (which wins over `from` and the deprecated `creationDate`).
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AdminService, type ListEventsRequest } from '@zitadel/proto/zitadel/admin_pb.js';
import type { EventSchema } from '@zitadel/proto/zitadel/event_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { listEvents, type EventFilter, type EventRow } from '../../events/audit.ts';
import { iamOwner, operation, type Operation } from '../operation.ts';

const MAX_EVENTS = 1000;

function timeFilter(req: ListEventsRequest): Pick<EventFilter, 'since' | 'until'> {
  const { creationDateFilter: f } = req;
  if (f.case === 'range')
    return {
      since: f.value.since && timestampDate(f.value.since),
      until: f.value.until && timestampDate(f.value.until),
    };
  const from = f.case === 'from' ? f.value : req.creationDate;
  return { since: from && timestampDate(from) };
}

// ZITADEL's translation keys; the types themselves stand in for the translations (as in changes.ts).
const localized = (prefix: string, type: string) => ({
  type,
  localized: { key: `${prefix}.${type}`, localizedMessage: type },
});

function eventMessage(e: EventRow): MessageInitShape<typeof EventSchema> {
  return {
    editor: { userId: e.creator, displayName: e.editor_name ?? '', service: '' },
    aggregate: {
      id: e.aggregate_id,
      type: localized('AggregateTypes', e.aggregate_type),
      resourceOwner: e.resource_owner,
    },
    sequence: BigInt(e.sequence),
    creationDate: timestampFromDate(e.created_at),
    payload: e.payload,
    type: localized('EventTypes', e.event_type),
  };
}

export function eventOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: AdminService.method.listEvents,
      permission: iamOwner,
      async handle(_caller, req) {
        const filter: EventFilter = {
          resourceOwner: req.resourceOwner,
          editorId: req.editorUserId,
          aggregateId: req.aggregateId,
          aggregateTypes: req.aggregateTypes,
          eventTypes: req.eventTypes,
          ...timeFilter(req),
        };
        const limit = req.limit === 0 || req.limit > MAX_EVENTS ? MAX_EVENTS : req.limit;
        const events = await listEvents(db, filter, { after: req.sequence, limit, asc: req.asc });
        return { events: events.map(eventMessage) };
      },
    }),
  ];
}
