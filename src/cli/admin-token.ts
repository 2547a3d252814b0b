// `gatehouse admin token`: an access token for the management API in one step, for curl and scripts. It belongs to
// the CLI's instance administrator (instance/admins.ts cliAdmin), a machine user made on first use, and is written
// like the token of a JWT-profile grant of that user (RFC 7523 §2.1): an opaque bearer token that the management API,
// userinfo, introspection and revocation treat as that grant's. The token is printed, never logged.
import { cliAdmin, CLI_ADMIN_USER_NAME } from '../instance/admins.ts';
import { machineTokenWriter, writeMachineToken } from '../oidc/machine-token-issuer.ts';
import { JWT_BEARER } from '../oidc/protocol.ts';
import { MANAGEMENT_API_SCOPE } from '../oidc/scopes.ts';
import { CLI_CREATOR, parseOptions, print, withInstance, type Command } from './command.ts';

/** An hour: long enough for a session of curl calls, short enough that a token left in a shell history soon
 *  expires. Never longer than the configured access token lifetime. */
const TOKEN_SECONDS = 3600;

export const adminToken: Command = {
  summary: 'print an access token for the management API (an instance administrator; valid for an hour)',
  help: `Usage: gatehouse admin token [--output json|table]

Prints an access token for the management API, of the instance administrator "${CLI_ADMIN_USER_NAME}" (a machine
user with IAM_OWNER, made on first use), valid for an hour (GATEHOUSE_ACCESS_TOKEN_TTL if shorter). Alone it prints
only the token, for a shell:

  curl -H "Authorization: Bearer $(npm run -s cli -- admin token)" http://localhost:8080/management/v1/orgs/me

Each call writes a new token; removing the user ("gatehouse user remove") ends all of them. Works whether the
server runs or not.

  --output json|table   {"accessToken","tokenType","expiresIn","userId"} instead of the bare token`,
  async run(args, ctx) {
    const o = parseOptions(args, { output: { type: 'string' } });
    return withInstance(ctx, async ({ db, instance }) => {
      const user = await cliAdmin(db, instance, CLI_CREATOR);
      const expiresIn = Math.min(TOKEN_SECONDS, ctx.config.ttl.accessToken);
      const request = {
        user,
        grantedOn: {},
        clientId: user.id,
        scope: `openid ${MANAGEMENT_API_SCOPE}`,
        grantType: JWT_BEARER,
      };
      const { payload } = await writeMachineToken(machineTokenWriter(db), request, expiresIn);
      if (o.output === undefined) ctx.io.stdout(`${payload.jti}\n`);
      else print(ctx, { accessToken: payload.jti, tokenType: 'Bearer', expiresIn, userId: user.id }, o.output);
      return 0;
    });
  },
};
