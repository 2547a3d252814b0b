// The login policy (ZITADEL's LoginPolicy) on the three services: administrators read and update the
// instance's; org owners and users read it (organizations have none of their own).
//
// Session lifetimes stay settings (GATEHOUSE_SESSION_ABSOLUTE_TTL): every check of a sign-in (password, IdP,
// second factor) lasts as long as the login session, which the provider is built with. The policy reports that
// value for each lifetime; an update may repeat it or leave it out, and is refused when it asks for another.
import { AdminService, type UpdateLoginPolicyRequest } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { PasswordlessType, SecondFactorType } from '@zitadel/proto/zitadel/policy_pb.js';
import type { Duration } from '@bufbuild/protobuf/wkt';
import type { ManagementDeps } from '../deps.ts';
import { getLoginPolicy, type StoredLoginPolicy } from '../../login-policy/current.ts';
import { updateLoginPolicy } from '../../login-policy/service.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { detailsMessage } from '../convert.ts';
import { authenticated, iamOwner, operation, orgOwner, type Operation } from '../operation.ts';

const LIFETIMES = [
  ['passwordCheckLifetime', 'PasswordCheckLifetime'],
  ['externalLoginCheckLifetime', 'ExternalLoginCheckLifetime'],
  ['secondFactorCheckLifetime', 'SecondFactorCheckLifetime'],
  ['multiFactorCheckLifetime', 'MultiFactorCheckLifetime'],
] as const;

export function loginPolicyOperations({ db, instance, config }: ManagementDeps): Operation[] {
  // (config is read per call: the methods table in docs/api.md lists the operations without one)
  const sessionLifetime = () => ({ seconds: BigInt(config.ttl.sessionAbsolute), nanos: 0 });
  const policyMessage = (p: StoredLoginPolicy) => ({
    details: detailsMessage({ ...p.details, resourceOwner: instance.id }),
    allowUsernamePassword: p.allowUsernamePassword,
    allowRegister: p.allowRegister,
    allowExternalIdp: p.allowExternalIdp,
    forceMfa: p.forceMfa,
    passwordlessType: p.passwordlessAllowed ? PasswordlessType.ALLOWED : PasswordlessType.NOT_ALLOWED,
    isDefault: true,
    // ZITADEL's IDs for unknown names are never revealed here: no answer tells which names exist
    ignoreUnknownUsernames: true,
    ...Object.fromEntries(LIFETIMES.map(([name]) => [name, sessionLifetime()])),
    secondFactors: [SecondFactorType.OTP],
  });
  const read = async () => ({ policy: policyMessage(await getLoginPolicy(db)) });
  const checkLifetimes = (req: UpdateLoginPolicyRequest) => {
    const lifetime = sessionLifetime();
    for (const [name, field] of LIFETIMES) {
      const value: Duration | undefined = req[name];
      if (value && (value.seconds !== 0n || value.nanos !== 0) && value.seconds !== lifetime.seconds)
        throw invalidArgument(
          `invalid UpdateLoginPolicyRequest.${field}: set by GATEHOUSE_SESSION_ABSOLUTE_TTL (${lifetime.seconds}s)`,
          'IAM-LOGPOL2',
        );
    }
  };
  return [
    operation({ method: AdminService.method.getLoginPolicy, permission: iamOwner, handle: read }),
    operation({
      method: AdminService.method.updateLoginPolicy,
      permission: iamOwner,
      async handle(caller, req) {
        checkLifetimes(req);
        const details = await updateLoginPolicy(
          db,
          instance.id,
          {
            allowUsernamePassword: req.allowUsernamePassword,
            allowRegister: req.allowRegister,
            allowExternalIdp: req.allowExternalIdp,
            forceMfa: req.forceMfa,
            passwordlessAllowed: req.passwordlessType === PasswordlessType.ALLOWED,
          },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getLoginPolicy,
      permission: orgOwner,
      async handle() {
        return { ...(await read()), isDefault: true };
      },
    }),
    operation({ method: AuthService.method.getMyLoginPolicy, permission: authenticated, handle: read }),
  ];
}
