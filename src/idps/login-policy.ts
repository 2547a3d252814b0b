// The IdPs of the instance's login policy (admin.proto AddIDPToLoginPolicy, ListLoginPolicyIDPs,
// RemoveIDPFromLoginPolicy): only these are offered on the login page and accepted in the scope
// urn:zitadel:iam:org:idp:id:{id}. A new IdP is not on the list until it is added, as in ZITADEL. ZITADEL's errors: an
// unknown IdP is FAILED_PRECONDITION (INSTANCE-m8fsd), one already listed ALREADY_EXISTS, removing one that is not
// listed NOT_FOUND.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, createdDetails, type Details } from '../events/details.ts';
import { alreadyExists, failedPrecondition, notFound } from '../platform/errors.ts';
import { Conditions, creationOrder, listPage, type ListResult, type Page } from '../platform/search.ts';
import { findIdpById } from './queries.ts';
import type { IdpRef } from './service.ts';

export async function addIdpToLoginPolicy(db: Db, ref: IdpRef): Promise<Details> {
  return db.tx(async (tx) => {
    // locked, so a concurrent RemoveIDP waits for this and takes the new row with it
    const idp = await findIdpById(tx, ref.idpId, true);
    if (idp?.instance_id !== ref.instanceId) throw failedPrecondition('IDP not found', 'INSTANCE-m8fsd');
    const { rowCount } = await tx.query('SELECT 1 FROM login_policy_idps WHERE instance_id = $1 AND idp_id = $2', [
      ref.instanceId,
      ref.idpId,
    ]);
    if (rowCount) throw alreadyExists('IDP is already on the login policy', 'INSTANCE-2B0ps');
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: ref.instanceId,
      eventType: EVENT.instance.loginPolicyIdpAdded,
      payload: { idpConfigId: ref.idpId, idpProviderType: 'system' },
      resourceOwner: ref.instanceId,
      creator: ref.editor,
    });
    await tx.query('INSERT INTO login_policy_idps (instance_id, idp_id, created_at) VALUES ($1, $2, $3)', [
      ref.instanceId,
      ref.idpId,
      event.createdAt,
    ]);
    return createdDetails(event);
  });
}

/** Takes the IdP off the list with its event; `cascade` when its removal does it. Undefined when not listed. */
export async function deleteLoginPolicyIdp(
  tx: Queryable,
  ref: IdpRef & { cascade: boolean },
): Promise<WrittenEvent | undefined> {
  const { rowCount } = await tx.query('DELETE FROM login_policy_idps WHERE instance_id = $1 AND idp_id = $2', [
    ref.instanceId,
    ref.idpId,
  ]);
  if (!rowCount) return undefined;
  return appendEvent(tx, {
    aggregateType: 'instance',
    aggregateId: ref.instanceId,
    eventType: ref.cascade ? EVENT.instance.loginPolicyIdpCascadeRemoved : EVENT.instance.loginPolicyIdpRemoved,
    payload: { idpConfigId: ref.idpId },
    resourceOwner: ref.instanceId,
    creator: ref.editor,
  });
}

export async function removeIdpFromLoginPolicy(db: Db, ref: IdpRef): Promise<Details> {
  return db.tx(async (tx) => {
    const event = await deleteLoginPolicyIdp(tx, { ...ref, cascade: false });
    if (!event) throw notFound('IDP is not on the login policy', 'INSTANCE-39fjs');
    return changedDetails(event);
  });
}

export interface LoginPolicyIdpRow {
  idp_id: string;
  idp_name: string;
}

/** ListLoginPolicyIDPs: in the order they were added, whatever their state. */
export function listLoginPolicyIdps(db: Db, instanceId: string, page: Page): Promise<ListResult<LoginPolicyIdpRow>> {
  return listPage<LoginPolicyIdpRow>(
    db,
    {
      select: 'p.idp_id, i.name AS idp_name',
      from: 'login_policy_idps p JOIN idps i ON i.id = p.idp_id',
      where: new Conditions().add('p.instance_id = ?', instanceId),
      orderBy: ['p.created_at', 'p.idp_id'],
    },
    creationOrder(page),
  );
}
