// Provisioning from the command line: `admin create`, `user import`, `service-user create` (and `app create`,
// app-create.ts). They call the same service functions as the management API, so the rules and events are the same.
import { create } from '@bufbuild/protobuf';
import { ImportHumanUserRequestSchema } from '@zitadel/proto/zitadel/management_pb.js';
import { isEmailAddress, validateMessage } from '../management/validate.ts';
import { getOrgById } from '../orgs/service.ts';
import { addMachineUser, addMachineUserKey, generateMachineSecret } from '../users/machine-service.ts';
import { importHumanUser, type ImportHumanInput } from '../passwords/new-human.ts';
import { getUserById } from '../users/service.ts';
import { loginName } from '../users/lookup.ts';
import { createAdmin } from '../instance/admins.ts';
import type { Db } from '../platform/db.ts';
import type { InstanceRow } from '../instance/queries.ts';
import {
  CLI_CREATOR,
  OUTPUT_HELP,
  OUTPUT_OPTION,
  parseOptions,
  print,
  required,
  UsageError,
  withInstance,
  type Command,
  type CommandContext,
} from './command.ts';

export const ORG_OPTION = { org: { type: 'string' } } as const;
export const ORG_HELP = '  --org ID              the organization (default: the first org, "Gatehouse")';

/** The org named by --org (which must exist), or the instance's first org. */
export async function orgOf(db: Db, instance: InstanceRow, org: string | undefined): Promise<string> {
  return org ? (await getOrgById(db, org)).id : instance.default_org_id;
}

const HUMAN_OPTIONS = {
  ...ORG_OPTION,
  ...OUTPUT_OPTION,
  username: { type: 'string' },
  email: { type: 'string' },
  'email-verified': { type: 'boolean', default: false },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  'display-name': { type: 'string', default: '' },
  phone: { type: 'string' },
  'phone-verified': { type: 'boolean', default: false },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean', default: false },
} as const;

const HUMAN_HELP = `  --username NAME       user name (login name: NAME@<org domain>)            required
  --email ADDRESS       e-mail address                                       required
  --email-verified      mark the e-mail address as verified
  --first-name NAME     given name                                           required
  --last-name NAME      family name                                          required
  --display-name NAME   display name (default: first and last name)
  --phone NUMBER        phone number starting with +; --phone-verified marks it verified
  --password-stdin      read the password from the first line of standard input (preferred)
  --password PASSWORD   the password (visible in the process list; use --password-stdin)
${ORG_HELP}
${OUTPUT_HELP}`;

async function humanInput(args: string[], db: Db, instance: InstanceRow, password: string) {
  const o = parseOptions(args, HUMAN_OPTIONS);
  const input: ImportHumanInput = {
    orgId: await orgOf(db, instance, o.org),
    userName: required(o.username, 'username'),
    profile: {
      firstName: required(o['first-name'], 'first-name'),
      lastName: required(o['last-name'], 'last-name'),
      nickName: '',
      displayName: o['display-name'],
      preferredLanguage: '',
      gender: 'GENDER_UNSPECIFIED',
    },
    email: required(o.email, 'email'),
    emailVerified: o['email-verified'],
    phone: o.phone ?? null,
    phoneVerified: o['phone-verified'],
    password,
  };
  if (!isEmailAddress(input.email)) throw new UsageError('--email must be an e-mail address');
  if (input.phone !== null && !/^\+\d{1,49}$/.test(input.phone))
    throw new UsageError('--phone must start with + followed by digits');
  // The management API's field rules for ImportHumanUser (one parser, management/validate.ts), so the CLI creates
  // no user the API would refuse (e.g. a name over 200 characters).
  const { profile } = input;
  const message = create(ImportHumanUserRequestSchema, {
    userName: input.userName,
    profile: { firstName: profile.firstName, lastName: profile.lastName, displayName: profile.displayName },
    email: { email: input.email, isEmailVerified: input.emailVerified },
    ...(input.phone === null ? {} : { phone: { phone: input.phone, isPhoneVerified: input.phoneVerified } }),
  });
  validateMessage(ImportHumanUserRequestSchema, message);
  return { input, output: o.output };
}

async function password(args: string[], ctx: CommandContext): Promise<string> {
  const o = parseOptions(args, HUMAN_OPTIONS);
  if (o.password !== undefined && o['password-stdin'])
    throw new UsageError('give either --password or --password-stdin');
  return o['password-stdin'] ? ctx.io.stdinLine() : (o.password ?? '');
}

async function printUser(
  ctx: CommandContext,
  db: Db,
  userId: string,
  output: string | undefined,
  extra: Record<string, unknown> = {},
) {
  const user = await getUserById(db, userId);
  print(ctx, { userId, userName: user.user_name, loginName: loginName(user), orgId: user.org_id, ...extra }, output);
}

export const userImport: Command = {
  summary: 'create a human user with a password (ImportHumanUser)',
  help: `Usage: gatehouse user import --username NAME --email ADDRESS --first-name NAME --last-name NAME [options]

Creates a human user who can sign in with the password given (argon2id-hashed). Without a password the user
exists but cannot sign in. Prints {"userId","userName","loginName","orgId"}.

${HUMAN_HELP}`,
  async run(args, ctx) {
    parseOptions(args, HUMAN_OPTIONS);
    const secret = await password(args, ctx);
    return withInstance(ctx, async ({ db, instance }) => {
      const { input, output } = await humanInput(args, db, instance, secret);
      const { userId } = await importHumanUser(db, input, CLI_CREATOR);
      await printUser(ctx, db, userId, output);
      return 0;
    });
  },
};

export const adminCreate: Command = {
  summary: 'create a human instance administrator (IAM_OWNER)',
  help:
    `Usage: gatehouse admin create --username NAME --email ADDRESS --first-name NAME --last-name NAME ` +
    `--password-stdin [options]

Creates a human user with a password and the IAM_OWNER role on the instance, in one transaction.
Prints {"userId","userName","loginName","orgId","roles"}.

${HUMAN_HELP}`,
  async run(args, ctx) {
    parseOptions(args, HUMAN_OPTIONS);
    const secret = await password(args, ctx);
    if (!secret) throw new UsageError('an administrator needs a password: --password-stdin or --password');
    return withInstance(ctx, async ({ db, instance }) => {
      const { input, output } = await humanInput(args, db, instance, secret);
      const { userId } = await createAdmin(db, instance.id, input, CLI_CREATOR);
      await printUser(ctx, db, userId, output, { roles: ['IAM_OWNER'] });
      return 0;
    });
  },
};

const SERVICE_USER_OPTIONS = {
  ...ORG_OPTION,
  ...OUTPUT_OPTION,
  username: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string', default: '' },
  'access-token-type': { type: 'string', default: 'opaque' },
  secret: { type: 'boolean', default: false },
} as const;

export const serviceUserCreate: Command = {
  summary: 'create a machine user; prints its key file (or a client secret with --secret)',
  help: `Usage: gatehouse service-user create --username NAME [options]

Creates a machine user (service account) and prints its key file, the JSON ZITADEL's SDKs read
({"type":"serviceaccount","keyId","key","userId",...}; save it: the private key is not stored). With --secret it
gets a client secret for client_credentials instead and prints {"userId","clientId","clientSecret"}.

  --username NAME                 user name (the client_id for client_credentials)   required
  --name NAME                     display name (default: the user name)
  --description TEXT              description
  --access-token-type opaque|jwt  access token format (default opaque)
  --secret                        a client secret instead of a key
${ORG_HELP}
${OUTPUT_HELP}`,
  async run(args, ctx) {
    const o = parseOptions(args, SERVICE_USER_OPTIONS);
    const userName = required(o.username, 'username');
    if (o['access-token-type'] !== 'opaque' && o['access-token-type'] !== 'jwt')
      throw new UsageError('--access-token-type must be opaque or jwt');
    return withInstance(ctx, async ({ db, secrets, instance }) => {
      const orgId = await orgOf(db, instance, o.org);
      const { userId } = await addMachineUser(
        db,
        {
          orgId,
          userName,
          name: o.name ?? userName,
          description: o.description,
          accessTokenType: o['access-token-type'] as 'opaque',
        },
        CLI_CREATOR,
      );
      if (o.secret) {
        const { clientId, clientSecret } = await generateMachineSecret(db, secrets, { orgId, userId }, CLI_CREATOR);
        print(ctx, { userId, clientId, clientSecret }, o.output);
      } else {
        print(ctx, { ...(await addMachineUserKey(db, { orgId, userId }, undefined, CLI_CREATOR)).keyFile }, o.output);
      }
      return 0;
    });
  },
};
