// Apps' whole life on zitadel.management.v1.ManagementService: add (OIDC and API), read, list, rename,
// configure, deactivate, reactivate, remove, new client secrets, app keys. Within the org in context (apps of other
// orgs: 404), and of the project the path names.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { countOrgApps } from '../../apps/queries.ts';
import {
  listAppKeys,
  listApps,
  regenerateClientSecret,
  removeApp,
  removeAppKey,
  setAppActive,
  updateApiAppConfig,
  updateApp,
} from '../../apps/lifecycle.ts';
import {
  addApiApp,
  addAppKey,
  addOidcApp,
  getApp,
  updateOidcAppConfig,
  type AddedApp,
  type AppRef,
} from '../../apps/service.ts';
import { API_AUTH_METHODS, appMessage, complianceMessages, oidcConfigInput } from '../app-messages.ts';
import { detailsMessage, keyDetails, keyMessages } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import {
  operation,
  orgOwner,
  type Caller,
  type Operation,
  projectRead,
  projectWrite,
  type Read,
} from '../operation.ts';
import { activationOperations } from './activation.ts';

const M = ManagementService.method;

/** The app named by the path, in the org in context: the service answers one of another org as not found. */
const appRef = (caller: Caller, req: { projectId: string; appId: string }): AppRef => ({
  orgId: caller.orgId,
  projectId: req.projectId,
  appId: req.appId,
});

/** What AddOIDCApp and AddAPIApp answer: the new client, and its secret this once ('' for a public client). */
const addedAppMessage = (added: AddedApp) => ({
  appId: added.appId,
  clientId: added.clientId,
  clientSecret: added.clientSecret ?? '',
  details: detailsMessage(added.details),
});

/** How many apps the org in context holds in all its projects (the console's overview). */
export const orgAppCountRead = ({ db }: ManagementDeps): Read<Record<string, never>, number> => ({
  permission: orgOwner,
  handle: (caller) => countOrgApps(db, caller.orgId),
});

export function appOperations({ db, secrets }: ManagementDeps): Operation[] {
  // The two share one request and one response shape.
  const secret = (
    method: (typeof M)['regenerateOIDCClientSecret' | 'regenerateAPIClientSecret'],
    kind: 'oidc' | 'api',
  ) =>
    operation({
      method: method as (typeof M)['regenerateOIDCClientSecret'],
      permission: projectWrite,
      async handle(caller, req) {
        const ref = appRef(caller, req);
        const { clientSecret, details } = await regenerateClientSecret(db, secrets, ref, kind, caller.principal.userId);
        return { clientSecret, details: detailsMessage(details) };
      },
    });
  return [
    operation({
      method: M.addOIDCApp,
      permission: projectWrite,
      async handle(caller, req) {
        const added = await addOidcApp(
          db,
          secrets,
          caller.orgId,
          { projectId: req.projectId, name: req.name, ...oidcConfigInput(req, 'AddOIDCAppRequest') },
          caller.principal.userId,
        );
        return { ...addedAppMessage(added), ...complianceMessages(added.complianceProblems ?? []) };
      },
    }),
    operation({
      method: M.addAPIApp,
      permission: projectWrite,
      async handle(caller, req) {
        const added = await addApiApp(
          db,
          secrets,
          caller.orgId,
          { projectId: req.projectId, name: req.name, authMethod: API_AUTH_METHODS[req.authMethodType]! },
          caller.principal.userId,
        );
        return addedAppMessage(added);
      },
    }),
    operation({
      method: M.getAppByID,
      permission: projectRead,
      async handle(caller, req) {
        return { app: appMessage(await getApp(db, appRef(caller, req))) };
      },
    }),
    operation({
      method: M.listApps,
      permission: projectRead,
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListAppsRequest');
        const names = req.queries.map((q, i) => {
          if (q.query.case !== 'nameQuery')
            throw invalidArgument(`invalid ListAppsRequest.Queries[${i}]: an empty query is not supported`);
          return textFilter(q.query.value.name, q.query.value.method);
        });
        const result = await listApps(db, caller.orgId, req.projectId, names, page);
        return { details: listDetailsMessage(result), result: result.rows.map(appMessage) };
      },
    }),
    operation({
      method: M.updateApp,
      permission: projectWrite,
      async handle(caller, req) {
        return { details: detailsMessage(await updateApp(db, appRef(caller, req), req.name, caller.principal.userId)) };
      },
    }),
    operation({
      method: M.updateOIDCAppConfig,
      permission: projectWrite,
      async handle(caller, req) {
        const { details } = await updateOidcAppConfig(
          db,
          secrets,
          appRef(caller, req),
          oidcConfigInput(req, 'UpdateOIDCAppConfigRequest'),
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.updateAPIAppConfig,
      permission: projectWrite,
      async handle(caller, req) {
        const method = API_AUTH_METHODS[req.authMethodType]!;
        const details = await updateApiAppConfig(db, secrets, appRef(caller, req), method, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    ...activationOperations(
      { deactivate: M.deactivateApp, reactivate: M.reactivateApp },
      projectWrite,
      (caller, req: { projectId: string; appId: string }, state) =>
        setAppActive(db, appRef(caller, req), state === 'active', caller.principal.userId),
    ),
    operation({
      method: M.removeApp,
      permission: projectWrite,
      async handle(caller, req) {
        return { details: detailsMessage(await removeApp(db, appRef(caller, req), caller.principal.userId)) };
      },
    }),
    secret(M.regenerateOIDCClientSecret, 'oidc'),
    secret(M.regenerateAPIClientSecret, 'api'),
    operation({
      method: M.addAppKey,
      permission: projectWrite,
      async handle(caller, req) {
        const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : undefined;
        const { keyId, keyFile, details } = await addAppKey(
          db,
          appRef(caller, req),
          expiresAt,
          caller.principal.userId,
        );
        return { id: keyId, keyDetails: keyDetails(keyFile), details: detailsMessage(details) };
      },
    }),
    operation({
      method: M.listAppKeys,
      permission: projectRead,
      async handle(caller, req) {
        const result = await listAppKeys(db, appRef(caller, req), pageOf(req.query, 'ListAppKeysRequest'));
        return { details: listDetailsMessage(result), result: keyMessages(result, caller.orgId) };
      },
    }),
    operation({
      method: M.removeAppKey,
      permission: projectWrite,
      async handle(caller, req) {
        const details = await removeAppKey(db, appRef(caller, req), req.keyId, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
