// ZITADEL's v1 list messages: `query` (zitadel.v1.ListQuery: offset,
// limit, asc) in, `details` (zitadel.v1.ListDetails: totalResult, processedSequence, viewTimestamp) out, and the
// TextQueryMethod of every text filter. ZITADEL's defaults: 100 rows when no limit is given, more than 1000 is
// INVALID_ARGUMENT (QUERY-4M0fs "Errors.Query.LimitExceeded"); here the message names the field. The SQL side is
// platform/search.ts.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { TextQueryMethod, type ListDetailsSchema, type ListQuery } from '@zitadel/proto/zitadel/object_pb.js';
import type { ChangeQuery } from '@zitadel/proto/zitadel/change_pb.js';
import type { ChangePage } from '../events/changes.ts';
import { invalidArgument } from '../platform/errors.ts';
import type { ListResult, Page, TextFilter, TextMethod } from '../platform/search.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The page a request's `query` asks for; `request` is the request message's name, e.g. "ListUsersRequest". */
export function pageOf(query: ListQuery | undefined, request: string): Page {
  return { offset: query?.offset ?? 0n, limit: limitOf(query, request), asc: query?.asc ?? false };
}

/** The same for the history methods' zitadel.change.v1.ChangeQuery (a sequence to go on from, no offset). */
export function changePageOf(query: ChangeQuery | undefined, request: string): ChangePage {
  return { sequence: query?.sequence ?? 0n, limit: limitOf(query, request), asc: query?.asc ?? false };
}

function limitOf(query: { limit: number } | undefined, request: string): number {
  const limit = query?.limit ?? 0;
  if (limit > MAX_LIMIT) {
    throw invalidArgument(
      `invalid ${request}.Query.Limit: value must be at most ${MAX_LIMIT} (given: ${limit})`,
      'QUERY-4M0fs',
    );
  }
  return limit || DEFAULT_LIMIT;
}

const METHODS: Record<TextQueryMethod, TextMethod> = {
  [TextQueryMethod.EQUALS]: 'equals',
  [TextQueryMethod.EQUALS_IGNORE_CASE]: 'equalsIgnoreCase',
  [TextQueryMethod.STARTS_WITH]: 'startsWith',
  [TextQueryMethod.STARTS_WITH_IGNORE_CASE]: 'startsWithIgnoreCase',
  [TextQueryMethod.CONTAINS]: 'contains',
  [TextQueryMethod.CONTAINS_IGNORE_CASE]: 'containsIgnoreCase',
  [TextQueryMethod.ENDS_WITH]: 'endsWith',
  [TextQueryMethod.ENDS_WITH_IGNORE_CASE]: 'endsWithIgnoreCase',
};

/** A text filter of a `*Query { <value>, method }` message (validate.ts has checked the method is defined). */
export function textFilter(value: string, method: TextQueryMethod): TextFilter {
  return { value, method: METHODS[method] };
}

export function listDetailsMessage(result: ListResult<unknown>): MessageInitShape<typeof ListDetailsSchema> {
  return {
    totalResult: result.totalResult,
    processedSequence: BigInt(result.processedSequence),
    viewTimestamp: timestampFromDate(result.viewTimestamp),
  };
}
