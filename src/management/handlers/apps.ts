// Apps' whole life on zitadel.management.v1.ManagementService: list, rename, API config, deactivate,
// reactivate, remove, new client secrets, app keys. Within the org in context (apps of other orgs: 404), and of the
// project the path names.
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { invalidArgument } from '../../platform/errors.ts';
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
import type { AppRef } from '../../apps/service.ts';
import { API_AUTH_METHODS, appMessage } from '../app-messages.ts';
import { detailsMessage } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import { operation, type Caller, type Operation, projectRead, projectWrite } from '../operation.ts';
import { keyMessages } from './users.ts';

const M = ManagementService.method;

const appRef = (caller: Caller, req: { projectId: string; appId: string }): AppRef => ({
  orgId: caller.orgId,
  projectId: req.projectId,
  appId: req.appId,
});

export function appOperations({ db, secrets }: ManagementDeps): Operation[] {
  // Each pair shares one request and one response shape.
  const active = (method: (typeof M)['deactivateApp' | 'reactivateApp'], value: boolean) =>
    operation({
      method: method as (typeof M)['deactivateApp'],
      permission: projectWrite,
      async handle(caller, req) {
        return { details: detailsMessage(await setAppActive(db, appRef(caller, req), value, caller.principal.userId)) };
      },
    });
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
      method: M.updateAPIAppConfig,
      permission: projectWrite,
      async handle(caller, req) {
        const method = API_AUTH_METHODS[req.authMethodType]!;
        const details = await updateApiAppConfig(db, secrets, appRef(caller, req), method, caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
    active(M.deactivateApp, false),
    active(M.reactivateApp, true),
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
