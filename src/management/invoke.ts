// The pipeline every management call goes through, whatever its encoding, in ZITADEL's order: authentication (401),
// permission (403), decoding and validation (400), then the operation and its business rules. (A project member's
// check reads the project from the request, so a malformed request of a project member is 400 before 403.)
import { create, type Message } from '@bufbuild/protobuf';
import type { Authorize, RequestCredentials } from './auth.ts';
import type { Operation } from './operation.ts';
import { validatedOnce } from './validate.ts';

export type Invoke = (op: Operation, credentials: RequestCredentials, decode: () => Message) => Promise<Message>;

export function createInvoke(authorize: Authorize): Invoke {
  return async (op, credentials, decode) => {
    // Decoded once, when the permission check of a project member needs the project it names, else after it.
    const request = validatedOnce(op.method.input, decode);
    const caller = await authorize(op.permission, credentials, request);
    return create(op.method.output, await op.handle(caller, request()));
  };
}
