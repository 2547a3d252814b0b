// The error model of compat.md §3 in its two encodings: a REST status with {code, message, details} and a gRPC
// status with the same message. Anything that is not an AppError becomes INTERNAL without detail (security.md).
import { create } from '@bufbuild/protobuf';
import { ConnectError } from '@connectrpc/connect';
import { ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';
import type { FastifyBaseLogger } from 'fastify';
import {
  AppError,
  Code,
  DatabaseUnavailable,
  invalidArgument,
  isClientAbort,
  isDatabaseUnavailable,
} from '../platform/errors.ts';

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

/** Any thrown value as the AppError the client may see; unexpected ones are logged here and nowhere else. */
export function toAppError(error: unknown, log: FastifyBaseLogger): AppError {
  if (error instanceof AppError) return error;
  if (isClientAbort(error)) {
    log.info('client aborted the request');
    return invalidArgument('request aborted');
  }
  if (isDatabaseUnavailable(error)) {
    log.error({ err: error }, 'database unavailable');
    return new DatabaseUnavailable(error);
  }
  log.error({ err: error }, 'management call failed');
  return new AppError(Code.Internal, 'Errors.Internal', 'API-internal');
}

export interface RestError {
  status: number;
  body: { code: number; message: string; details?: { '@type': string; id: string; message: string }[] };
}

export function restError(error: AppError): RestError {
  const body: RestError['body'] = { code: error.code, message: error.publicMessage };
  if (error.id)
    body.details = [{ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: error.id, message: error.message }];
  return { status: HTTP_STATUS[error.code] ?? 500, body };
}

export function connectError(error: AppError): ConnectError {
  const details = error.id
    ? [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { id: error.id, message: error.message }) }]
    : [];
  return new ConnectError(error.publicMessage, error.code, undefined, details);
}
