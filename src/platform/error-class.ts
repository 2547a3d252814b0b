// One classification of a thrown error for every surface that answers it (the OAuth endpoints' handler in app.ts,
// the management API, the provider's server_error event, the pages): whether the client went away, the database is
// unreachable, or the error has a status of its own. Each surface encodes the class its own way (JSON, gRPC status,
// an HTML page), but none decides differently what an error is.
import {
  AppError,
  Code,
  DATABASE_RETRY_AFTER,
  DatabaseUnavailable,
  isClientAbort,
  isDatabaseUnavailable,
  requestErrorStatus,
} from './errors.ts';

/** The HTTP status of each gRPC code, as ZITADEL's gateway maps them. */
const HTTP_STATUS: Record<number, number> = {
  [Code.InvalidArgument]: 400,
  [Code.FailedPrecondition]: 400,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.Unauthenticated]: 401,
  [Code.ResourceExhausted]: 429,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.Internal]: 500,
};

export const httpStatusOf = (code: Code): number => HTTP_STATUS[code] ?? 500;

export type ErrorClass =
  /** The client disconnected before its request was complete: its doing, not a server failure (logged as info). */
  | { kind: 'aborted' }
  /** The database is unreachable: 503 with Retry-After (429 is only for a client's own excess). */
  | { kind: 'outage'; retryAfter: number }
  /** An answer of the error's own: an AppError's status, a 4xx Fastify raised for the request, or 500 (a failure). */
  | { kind: 'status'; status: number; retryAfter?: number };

export function classifyError(error: unknown): ErrorClass {
  if (isClientAbort(error)) return { kind: 'aborted' };
  if (error instanceof DatabaseUnavailable || isDatabaseUnavailable(error)) {
    return { kind: 'outage', retryAfter: DATABASE_RETRY_AFTER };
  }
  if (error instanceof AppError) {
    const status = httpStatusOf(error.code);
    return error.retryAfter === undefined
      ? { kind: 'status', status }
      : { kind: 'status', status, retryAfter: error.retryAfter };
  }
  return { kind: 'status', status: requestErrorStatus(error as { statusCode?: number }) };
}
