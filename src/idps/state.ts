// DeactivateIDP / ReactivateIDP (admin.proto): an inactive IdP cannot start or finish a sign-in (login/jwt-idp-flow.ts)
// and is not offered on the login page. ZITADEL's errors: FAILED_PRECONDITION when the IdP is not in the state the call
// leaves.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition } from '../platform/errors.ts';
import { lockInstanceIdp } from './service.ts';

const TRANSITIONS = {
  inactive: { from: 'active', event: EVENT.instance.idpConfigDeactivated, error: ['INSTANCE-2n0fs', 'Not Active'] },
  active: { from: 'inactive', event: EVENT.instance.idpConfigReactivated, error: ['INSTANCE-5Mo0d', 'Not Inactive'] },
} as const;

export async function setIdpState(
  db: Db,
  instanceId: string,
  idpId: string,
  to: 'active' | 'inactive',
  editor: string,
): Promise<Details> {
  const transition = TRANSITIONS[to];
  return db.tx(async (tx) => {
    const idp = await lockInstanceIdp(tx, instanceId, idpId);
    if (idp.state !== transition.from) throw failedPrecondition(`IDP ${transition.error[1]}`, transition.error[0]);
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: transition.event,
      payload: { idpConfigId: idpId },
      resourceOwner: instanceId,
      creator: editor,
    });
    await tx.query('UPDATE idps SET state = $2, sequence = $3, changed_at = $4 WHERE id = $1', [
      idpId,
      to,
      event.sequence,
      event.createdAt,
    ]);
    return changedDetails(event);
  });
}
