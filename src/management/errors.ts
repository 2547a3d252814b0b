// ZITADEL's v1 error model in its two encodings: a REST status with {code, message, details} and a gRPC
// status with the same message. Anything that is not an AppError becomes INTERNAL without detail, so no internals leak.
import { create } from '@bufbuild/protobuf';
import { ConnectError } from '@connectrpc/connect';
import { ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, Code, DatabaseUnavailable, invalidArgument } from '../platform/errors.ts';
import { classifyError, httpStatusOf } from '../platform/error-class.ts';

/** Any thrown value as the AppError the client may see; unexpected ones are logged here and nowhere else. */
export function toAppError(error: unknown, log: FastifyBaseLogger): AppError {
  if (error instanceof AppError) return error;
  switch (classifyError(error).kind) {
    case 'aborted':
      log.info('client aborted the request');
      return invalidArgument('request aborted');
    case 'outage':
      log.error({ err: error }, 'database unavailable');
      return new DatabaseUnavailable(error);
    default:
      log.error({ err: error }, 'management call failed');
      return new AppError(Code.Internal, 'Errors.Internal', 'API-internal');
  }
}

export interface RestError {
  status: number;
  body: { code: number; message: string; details?: { '@type': string; id: string; message: string }[] };
}

export function restError(error: AppError): RestError {
  const body: RestError['body'] = { code: error.code, message: error.publicMessage };
  if (error.id)
    body.details = [{ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: error.id, message: error.message }];
  return { status: httpStatusOf(error.code), body };
}

export function connectError(error: AppError): ConnectError {
  const details = error.id
    ? [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { id: error.id, message: error.message }) }]
    : [];
  return new ConnectError(error.publicMessage, error.code, undefined, details);
}
