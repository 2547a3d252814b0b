// zitadel.management.v1.ManagementService: provisioning within the org in context:
// `x-zitadel-orgid` or the caller's org; ORG_OWNER of that org, IAM_OWNER everywhere (auth.ts).
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ManagementDeps } from '../deps.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { getOrgById } from '../../orgs/service.ts';
import { addProject } from '../../projects/service.ts';
import { addApiApp, addAppKey, addOidcApp, getApp, updateOidcAppConfig, type AppRef } from '../../apps/service.ts';
import { orgUserGetter } from '../../users/service.ts';
import { addMachineUser, addMachineUserKey, generateMachineSecret } from '../../users/machine-service.ts';
import { importHumanUser } from '../../passwords/new-human.ts';
import { changeUserState } from '../../users/state.ts';
import { detailsMessage, userMessage, humanInput, orgMessage } from '../convert.ts';
import { API_AUTH_METHODS, appMessage, complianceMessages, oidcConfigInput, TOKEN_TYPES } from '../app-messages.ts';
import {
  callerHash,
  operation,
  orgOwner,
  projectPermission,
  projectRead,
  projectWrite,
  type Caller,
  type Operation,
} from '../operation.ts';

/** keyDetails: the key file JSON, as bytes (base64 in the JSON encoding), as ZITADEL returns it. */
const keyDetails = (keyFile: object) => new TextEncoder().encode(JSON.stringify(keyFile));

/** The app named by the path, in the org in context: the service answers one of another org as not found. */
const appRef = (caller: Caller, req: { projectId: string; appId: string }): AppRef => ({
  orgId: caller.orgId,
  projectId: req.projectId,
  appId: req.appId,
});

const unsupported = (field: string) => invalidArgument(`invalid ${field}: not supported by Gatehouse`, 'API-N0tSup');

export function managementServiceOperations({ db, secrets, hashing }: ManagementDeps): Operation[] {
  const getOrgUserById = orgUserGetter(db);
  return [
    operation({
      method: ManagementService.method.getMyOrg,
      permission: orgOwner,
      async handle(caller) {
        const org = await getOrgById(db, caller.orgId);
        return { org: orgMessage(org) };
      },
    }),
    operation({
      method: ManagementService.method.addProject,
      permission: orgOwner,
      async handle(caller, req) {
        const { projectId, details } = await addProject(
          db,
          { orgId: caller.orgId, name: req.name },
          caller.principal.userId,
        );
        return { id: projectId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.addOIDCApp,
      permission: projectWrite,
      async handle(caller, req) {
        const added = await addOidcApp(
          db,
          secrets,
          caller.orgId,
          { projectId: req.projectId, name: req.name, ...oidcConfigInput(req, 'AddOIDCAppRequest') },
          caller.principal.userId,
        );
        return {
          appId: added.appId,
          clientId: added.clientId,
          clientSecret: added.clientSecret ?? '',
          details: detailsMessage(added.details),
          ...complianceMessages(added.complianceProblems ?? []),
        };
      },
    }),
    operation({
      method: ManagementService.method.addAPIApp,
      permission: projectWrite,
      async handle(caller, req) {
        const added = await addApiApp(
          db,
          secrets,
          caller.orgId,
          { projectId: req.projectId, name: req.name, authMethod: API_AUTH_METHODS[req.authMethodType]! },
          caller.principal.userId,
        );
        return {
          appId: added.appId,
          clientId: added.clientId,
          clientSecret: added.clientSecret ?? '',
          details: detailsMessage(added.details),
        };
      },
    }),
    operation({
      method: ManagementService.method.getAppByID,
      permission: projectRead,
      async handle(caller, req) {
        return { app: appMessage(await getApp(db, appRef(caller, req))) };
      },
    }),
    operation({
      method: ManagementService.method.updateOIDCAppConfig,
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
      method: ManagementService.method.addAppKey,
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
      method: ManagementService.method.addMachineUser,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.userId) throw unsupported('AddMachineUserRequest.UserId');
        const { userId, details } = await addMachineUser(
          db,
          {
            orgId: caller.orgId,
            userName: req.userName,
            name: req.name,
            description: req.description,
            accessTokenType: TOKEN_TYPES[req.accessTokenType]!,
          },
          caller.principal.userId,
        );
        return { userId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.addMachineKey,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.publicKey.length) throw unsupported('AddMachineKeyRequest.PublicKey');
        const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : undefined;
        const { keyId, keyFile, details } = await addMachineUserKey(
          db,
          { orgId: caller.orgId, userId: req.userId },
          expiresAt,
          caller.principal.userId,
        );
        return { keyId, keyDetails: keyDetails(keyFile), details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.generateMachineSecret,
      permission: orgOwner,
      async handle(caller, req) {
        const { clientId, clientSecret, details } = await generateMachineSecret(
          db,
          secrets,
          { orgId: caller.orgId, userId: req.userId },
          caller.principal.userId,
        );
        return { clientId, clientSecret, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.importHumanUser,
      permission: orgOwner,
      async handle(caller, req) {
        if (req.hashedPassword?.value) throw unsupported('ImportHumanUserRequest.HashedPassword');
        if (req.requestPasswordlessRegistration)
          throw unsupported('ImportHumanUserRequest.RequestPasswordlessRegistration');
        if (req.otpCode) throw unsupported('ImportHumanUserRequest.OtpCode');
        if (req.idps.length) throw unsupported('ImportHumanUserRequest.Idps');
        const { userId, details } = await importHumanUser(
          db,
          { orgId: caller.orgId, ...humanInput(req), passwordChangeRequired: req.passwordChangeRequired },
          caller.principal.userId,
          callerHash(hashing, caller),
        );
        return { userId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getUserByID,
      // ZITADEL's PROJECT_OWNER(_VIEWER) holds user.read (cmd/defaults.yaml), as for ListUsers
      permission: projectPermission('read'),
      async handle(caller, req) {
        return { user: userMessage(await getOrgUserById({ orgId: caller.orgId, userId: req.id })) };
      },
    }),
    operation({
      method: ManagementService.method.deactivateUser,
      permission: orgOwner,
      async handle(caller, req) {
        const ref = { orgId: caller.orgId, userId: req.id };
        const details = await changeUserState(db, ref, 'deactivate', caller.principal.userId);
        return { details: detailsMessage(details) };
      },
    }),
  ];
}
