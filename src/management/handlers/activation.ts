// Deactivate… and Reactivate… of one kind of object (an org, a project, an app, a user grant, a project grant): the
// two methods share one request shape and answer with the details of the state change the service made.
import type { DescMessage, DescMethodUnary } from '@bufbuild/protobuf';
import type { Details } from '../../events/details.ts';
import { detailsMessage } from '../convert.ts';
import type { Caller, Operation, Permission } from '../operation.ts';

export type ObjectState = 'active' | 'inactive';

type Method = DescMethodUnary<DescMessage, DescMessage>;

/** The two operations: `setState` puts the object the request (`R`) names in the state the method names. */
export function activationOperations<R>(
  methods: { deactivate: Method; reactivate: Method },
  permission: Permission,
  setState: (caller: Caller, request: R, state: ObjectState) => Promise<Details>,
): Operation[] {
  const change = (method: Method, state: ObjectState): Operation => ({
    method,
    permission,
    async handle(caller, request) {
      return { details: detailsMessage(await setState(caller, request as R, state)) };
    },
  });
  return [change(methods.deactivate, 'inactive'), change(methods.reactivate, 'active')];
}
