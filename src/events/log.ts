// The append-only event log: every request that changes state appends a row. A change writes its state rows and its
// event(s) in one transaction; the caller builds the API's Details from the event.
import type { Queryable } from '../platform/db.ts';
import type { AggregateType, EventType } from './types.ts';

/** An event of the catalog (types.ts), on an aggregate of the type its name belongs to. */
export interface NewEvent<A extends AggregateType = AggregateType> {
  aggregateType: A;
  aggregateId: string;
  eventType: EventType<A>;
  payload?: Record<string, unknown>;
  resourceOwner: string;
  creator: string;
}

export interface WrittenEvent {
  sequence: string; // int8 arrives from pg as a string, which is also how the API serialises uint64
  createdAt: Date;
  resourceOwner: string;
}

export async function appendEvent<A extends AggregateType>(tx: Queryable, event: NewEvent<A>): Promise<WrittenEvent> {
  const { rows } = await tx.query<{ sequence: string; created_at: Date }>(
    `INSERT INTO events (aggregate_type, aggregate_id, event_type, payload, resource_owner, creator)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING sequence, created_at`,
    [event.aggregateType, event.aggregateId, event.eventType, event.payload ?? {}, event.resourceOwner, event.creator],
  );
  const row = rows[0]!;
  return { sequence: row.sequence, createdAt: row.created_at, resourceOwner: event.resourceOwner };
}

/** The latest position of the log; 0 when empty. */
export async function latestSequence(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ s: string | null }>('SELECT max(sequence) AS s FROM events');
  return rows[0]?.s ?? '0';
}
