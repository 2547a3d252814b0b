// UpdateLoginPolicy: the policy replaced as a whole, with its event, in one transaction.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument } from '../platform/errors.ts';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from './policy.ts';
import { findLoginPolicy, lockLoginPolicy, upsertLoginPolicy } from './queries.ts';

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
    // ZITADEL's answer to a policy saved as it is (the default counts as the policy in force)
    await lockLoginPolicy(tx);
    const current = (await findLoginPolicy(tx)) ?? DEFAULT_LOGIN_POLICY;
    if ((Object.keys(DEFAULT_LOGIN_POLICY) as (keyof LoginPolicy)[]).every((k) => current[k] === policy[k]))
      throw failedPrecondition('Login policy not changed', 'INSTANCE-5M9vdd');
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: EVENT.instance.loginPolicyChanged,
      payload: { ...policy },
      resourceOwner: instanceId,
      creator,
    });
    await upsertLoginPolicy(tx, policy, event.sequence, event.createdAt);
    return { ...changedDetails(event), resourceOwner: instanceId };
  });
}
