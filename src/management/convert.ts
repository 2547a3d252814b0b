// Shapes shared by the handlers: Details and stored enum names as the v1 messages carry them.
import type { DescEnum, MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ObjectDetailsSchema } from '@zitadel/proto/zitadel/object_pb.js';
import type { Details } from '../events/details.ts';

export function detailsMessage(d: Details): MessageInitShape<typeof ObjectDetailsSchema> {
  return {
    sequence: BigInt(d.sequence),
    creationDate: d.creationDate && timestampFromDate(d.creationDate),
    changeDate: d.changeDate && timestampFromDate(d.changeDate),
    resourceOwner: d.resourceOwner,
  };
}

/** Details of a stored object as a read returns them (interface.md "Details object", "On read"). */
export function storedDetails(row: { sequence: string; created_at: Date; changed_at: Date }, resourceOwner: string): MessageInitShape<typeof ObjectDetailsSchema> {
  return detailsMessage({ sequence: row.sequence, creationDate: row.created_at, changeDate: row.changed_at, resourceOwner });
}

/** Stored enums keep the proto value name (e.g. GENDER_FEMALE), which is also their JSON form. */
export function enumName<T extends string>(schema: DescEnum, value: number): T {
  return schema.values.find((v) => v.number === value)!.name as T;
}

export function enumNumber(schema: DescEnum, name: string): number {
  return schema.values.find((v) => v.name === name)?.number ?? 0;
}
