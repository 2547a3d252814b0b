// The instance's JWT IdPs after AddJWTIDP (admin.proto): ListIDPs, UpdateIDP, UpdateIDPJWTConfig and RemoveIDP, with
// ZITADEL's rules: a change that changes nothing is FAILED_PRECONDITION, an unknown IdP NOT_FOUND, and a removal takes
// the IdP off the login policy and removes every user's link to it, each with its event.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition } from '../platform/errors.ts';
import {
  creationOrder,
  Conditions,
  listPage,
  type ListResult,
  type Page,
  type TextFilter,
} from '../platform/search.ts';
import {
  deleteIdp,
  IDP_COLUMNS,
  updateIdpColumns,
  type ChangeableColumn,
  type IdpRow,
  type JwtIdpConfig,
} from './queries.ts';
import { checkJwtIdpConfig } from './schema.ts';
import { lockInstanceIdp, type IdpRef } from './service.ts';
import { deleteLoginPolicyIdp } from './login-policy.ts';
import { linksOfIdp } from './links.ts';

export type IdpFilter = { field: 'id'; id: string } | { field: 'name'; text: TextFilter };

/** ListIDPs: the instance's IdPs, in the order they were added, or by name (IDP_FIELD_NAME_NAME). */
export function listIdps(
  db: Db,
  instanceId: string,
  filters: readonly IdpFilter[],
  page: Page,
  sortByName: boolean,
): Promise<ListResult<IdpRow>> {
  const where = new Conditions().add('i.instance_id = ?', instanceId);
  for (const f of filters) {
    if (f.field === 'id') where.add('i.id = ?', f.id);
    else where.text('i.name', f.text);
  }
  return listPage<IdpRow>(
    db,
    {
      select: IDP_COLUMNS,
      from: 'idps i',
      where,
      orderBy: sortByName ? ['lower(i.name)', 'i.id'] : ['i.created_at', 'i.id'],
    },
    sortByName ? page : creationOrder(page),
  );
}

/** What a change sets: API field name → column, and the values the request asks for. */
type FieldColumns = Record<string, ChangeableColumn>;

const IDP_FIELDS = { name: 'name', stylingType: 'styling_type', autoRegister: 'auto_register' } as const;
const JWT_FIELDS = {
  jwtEndpoint: 'jwt_endpoint',
  issuer: 'issuer',
  keysEndpoint: 'keys_endpoint',
  headerName: 'header_name',
} as const;

/** Writes the fields whose value differs from the stored one, with one event naming only those (ZITADEL's
 *  changed events); nothing to change is FAILED_PRECONDITION. */
function changeIdp(
  db: Db,
  ref: IdpRef,
  fields: FieldColumns,
  values: Record<string, string | boolean>,
  eventType: EventType<'instance'>,
  unchanged: [id: string, message: string],
): Promise<Details> {
  return db.tx(async (tx) => {
    const idp = await lockInstanceIdp(tx, ref.instanceId, ref.idpId);
    const changed = Object.entries(fields).filter(([field, column]) => idp[column] !== values[field]);
    if (!changed.length) throw failedPrecondition(unchanged[1], unchanged[0]);
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: ref.instanceId,
      eventType,
      payload: { idpConfigId: ref.idpId, ...Object.fromEntries(changed.map(([field]) => [field, values[field]])) },
      resourceOwner: ref.instanceId,
      creator: ref.editor,
    });
    await updateIdpColumns(tx, ref.idpId, Object.fromEntries(changed.map(([field, c]) => [c, values[field]!])), event);
    return changedDetails(event);
  });
}

/** UpdateIDP: name, styling and autoRegister. */
export function updateIdp(
  db: Db,
  ref: IdpRef,
  change: Pick<JwtIdpConfig, 'name' | 'stylingType' | 'autoRegister'>,
): Promise<Details> {
  return changeIdp(db, ref, IDP_FIELDS, change, EVENT.instance.idpConfigChanged, ['INSTANCE-4M9vs', 'IDP not changed']);
}

/** UpdateIDPJWTConfig. The next sign-in reads the new row, whose sequence tells every process's key cache
 *  (jwt-token.ts) to fetch the keys from the new keysEndpoint: keys of the old one are never used again. */
export function updateIdpJwtConfig(
  db: Db,
  ref: IdpRef,
  config: Pick<JwtIdpConfig, 'jwtEndpoint' | 'issuer' | 'keysEndpoint' | 'headerName'>,
): Promise<Details> {
  checkJwtIdpConfig(config, 'UpdateIDPJWTConfigRequest');
  const unchanged = ['INSTANCE-3n9gg', 'IDP JWT configuration not changed'] as [string, string];
  return changeIdp(db, ref, JWT_FIELDS, config, EVENT.instance.idpJwtConfigChanged, unchanged);
}

/** RemoveIDP: the IdP, its place on the login policy and its users' links (ZITADEL's cascade events). */
export function removeIdp(db: Db, ref: IdpRef): Promise<Details> {
  return db.tx(async (tx) => {
    const idp = await lockInstanceIdp(tx, ref.instanceId, ref.idpId);
    const event = await appendEvent(tx, {
      aggregateType: 'instance',
      aggregateId: ref.instanceId,
      eventType: EVENT.instance.idpConfigRemoved,
      payload: { idpConfigId: idp.id, name: idp.name },
      resourceOwner: ref.instanceId,
      creator: ref.editor,
    });
    await deleteLoginPolicyIdp(tx, { ...ref, cascade: true });
    for (const link of await linksOfIdp(tx, idp.id)) {
      await appendEvent(tx, {
        aggregateType: 'user',
        aggregateId: link.user_id,
        eventType: EVENT.user.idpLinkCascadeRemoved,
        payload: { idpConfigId: idp.id, userId: link.external_user_id },
        resourceOwner: link.org_id,
        creator: ref.editor,
      });
    }
    await deleteIdp(tx, idp.id);
    return changedDetails(event);
  });
}
