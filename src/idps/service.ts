// Identity provider configurations (ZITADEL's AddJWTIDP). They belong to the instance.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { notFound } from '../platform/errors.ts';
import type { Queryable } from '../platform/db.ts';
import { findIdpById, insertJwtIdp, type IdpRow, type JwtIdpConfig } from './queries.ts';
import { checkJwtIdpConfig } from './schema.ts';

export async function addJwtIdp(
  db: Db,
  instanceId: string,
  config: JwtIdpConfig,
  creator: string,
): Promise<{ idpId: string; details: Details }> {
  checkJwtIdpConfig(config, 'AddJWTIDPRequest');
  const idpId = newId();
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: EVENT.instance.jwtIdpAdded,
      payload: { idpId, ...config },
      resourceOwner: instanceId,
      creator,
    });
    await insertJwtIdp(tx, { ...config, id: idpId, instanceId, sequence: event.sequence, createdAt: event.createdAt });
    return { idpId, details: createdDetails(event) };
  });
}

/** An IdP of the instance as a change names it, with who makes the change (the event's creator). */
export interface IdpRef {
  instanceId: string;
  idpId: string;
  editor: string;
}

const idpNotFound = () => notFound('IDP not found', 'IDP-4M9fs');

export async function getIdpById(db: Db, id: string): Promise<IdpRow> {
  const idp = await findIdpById(db, id);
  if (!idp) throw idpNotFound();
  return idp;
}

/** The instance's IdP, locked for a change in the caller's transaction; another instance's is not found. */
export async function lockInstanceIdp(tx: Queryable, instanceId: string, idpId: string): Promise<IdpRow> {
  const idp = await findIdpById(tx, idpId, true);
  if (idp?.instance_id !== instanceId) throw idpNotFound();
  return idp;
}
