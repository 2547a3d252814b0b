// The pipeline every management call goes through, whatever its encoding (compat.md §3): authentication (401),
// permission (403), decoding and validation (400), then the operation and its business rules.
import { create, type Message } from '@bufbuild/protobuf';
import type { Authorize, RequestCredentials } from './auth.ts';
import type { Operation } from './operation.ts';
import { validateMessage } from './validate.ts';

export type Invoke = (op: Operation, credentials: RequestCredentials, decode: () => Message) => Promise<Message>;

export function createInvoke(authorize: Authorize): Invoke {
  return async (op, credentials, decode) => {
    const caller = await authorize(op.permission, credentials);
    const request = decode();
    validateMessage(op.method.input, request);
    return create(op.method.output, await op.handle(caller, request));
  };
}
