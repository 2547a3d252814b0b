// Identity provider configurations (interface.md "Add JWT Identity Provider"). They belong to the instance.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { notFound } from '../platform/errors.ts';
import { findIdpById, insertJwtIdp, type IdpRow, type JwtIdpConfig } from './queries.ts';
import { checkJwtIdpConfig } from './schema.ts';

export async function addJwtIdp(
  db: Db,
  instanceId: string,
  config: JwtIdpConfig,
  creator: string,
): Promise<{ idpId: string; details: Details }> {
  checkJwtIdpConfig(config);
  const idpId = newId();
  return db.tx(async (tx) => {
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: instanceId,
      eventType: 'instance.idp.jwt.added',
      payload: { idpId, ...config },
      resourceOwner: instanceId,
      creator,
    });
    await insertJwtIdp(tx, { ...config, id: idpId, instanceId, sequence: event.sequence, createdAt: event.createdAt });
    return { idpId, details: createdDetails(event) };
  });
}

export async function getIdpById(db: Db, id: string): Promise<IdpRow> {
  const idp = await findIdpById(db, id);
  if (!idp) throw notFound('IDP not found', 'IDP-4M9fs');
  return idp;
}
