// The pipeline every management call goes through, whatever its client: the API's encodings (REST, gRPC, gRPC-Web)
// and the console, in ZITADEL's order. The client says who calls (a bearer token, the console's session: 401 when
// that proves no one); then the permission (403), decoding and validation (400), and the operation with its
// business rules, whose services write the events. (A project member's check reads the project from the request,
// so a malformed request of a project member is 400 before 403.) Each client answers a refusal in its own
// encoding: errors.ts for the API's, the console's pages for the console.
import { create, type Message } from '@bufbuild/protobuf';
import type { Caller, Operation, Permission, Read } from './operation.ts';
import { validatedOnce } from './validate.ts';

/** The caller as the operation sees it, from what the client presents (`C`): 401, then 403. `request` decodes and
 *  validates the request (400); only a project member's check of a `project` permission reads it. */
export type Authorize<C> = (permission: Permission, credentials: C, request: () => Message) => Promise<Caller>;

export type Invoke<C> = (op: Operation, credentials: C, decode: () => Message) => Promise<Message>;

export function createInvoke<C>(authorize: Authorize<C>): Invoke<C> {
  return async (op, credentials, decode) => {
    // Decoded once, when the permission check of a project member needs the project it names, else after it.
    const request = validatedOnce(op.method.input, decode);
    const caller = await authorize(op.permission, credentials, request);
    return create(op.method.output, await op.handle(caller, request()));
  };
}

export type InvokeRead<C> = <R, T>(read: Read<R, T>, credentials: C, request: R) => Promise<T>;

/** The same pipeline for a read no method serves (operation.ts): the permission check, then the read. */
export function createInvokeRead<C>(authorize: Authorize<C>): InvokeRead<C> {
  const noMessage = (): Message => {
    throw new Error('a read has no request message to name a project in');
  };
  return async (read, credentials, request) =>
    read.handle(await authorize(read.permission, credentials, noMessage), request);
}
