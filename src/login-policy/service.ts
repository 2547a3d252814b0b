// UpdateLoginPolicy (issue 17): the policy replaced as a whole, with its event, in one transaction.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { invalidArgument } from '../platform/errors.ts';
import type { LoginPolicy } from './policy.ts';
import { upsertLoginPolicy } from './queries.ts';

export async function updateLoginPolicy(
  db: Db,
  instanceId: string,
  policy: LoginPolicy,
  creator: string,
): Promise<Details> {
  // a policy that leaves no way to sign in would lock out every user, the administrators included
  if (!policy.allowUsernamePassword && !policy.allowExternalIdp && !policy.passwordlessAllowed)
    throw invalidArgument(
      'invalid UpdateLoginPolicyRequest.AllowUsernamePassword: at least one way to sign in must be allowed',
      'IAM-LOGPOL1',
    );
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: 'instance.policy.login.changed',
      payload: { ...policy },
      resourceOwner: instanceId,
      creator,
    });
    await upsertLoginPolicy(tx, policy, event.sequence, event.createdAt);
    return { ...changedDetails(event), resourceOwner: instanceId };
  });
}
