// The Details object of ZITADEL's management API: on create it carries creationDate, on change changeDate, both taken
// from the event the change wrote.
import type { WrittenEvent } from './log.ts';

export interface Details {
  sequence: string;
  creationDate?: Date;
  changeDate?: Date;
  resourceOwner: string;
}

export function createdDetails(event: WrittenEvent): Details {
  return {
    sequence: event.sequence,
    creationDate: event.createdAt,
    changeDate: event.createdAt,
    resourceOwner: event.resourceOwner,
  };
}

export function changedDetails(event: WrittenEvent): Details {
  return { sequence: event.sequence, changeDate: event.createdAt, resourceOwner: event.resourceOwner };
}
