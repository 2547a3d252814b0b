// The end of a successful sign-in or registration: remember the account on this browser and resume the flow. Only
// here, with every factor given and the sign-in checks passed, is an IdP identity waiting for this user linked:
// a first factor alone writes nothing that lasts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { refuseSignIn } from './refused.ts';
import { completePendingLink } from './jwt-idp-link.ts';
import { finish, type Interaction, type InteractionDetails, type LoginDeps } from './interaction.ts';
import {
  KNOWN_ACCOUNTS_COOKIE,
  knownAccountsCookieOptions,
  readKnownAccounts,
  withKnownAccount,
} from './known-accounts.ts';

export function knownAccountIds(deps: LoginDeps, request: FastifyRequest): string[] {
  return readKnownAccounts(deps.secrets, request.cookies[KNOWN_ACCOUNTS_COOKIE]);
}

export function requestedPrompts(details: InteractionDetails): Set<string> {
  return new Set(
    String(details.params.prompt ?? '')
      .split(' ')
      .filter(Boolean),
  );
}

export async function signedIn(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  userId: string,
  amr: string[] = ['pwd'],
): Promise<FastifyReply> {
  const cookie = withKnownAccount(deps.secrets, knownAccountIds(deps, request), userId);
  reply.setCookie(
    KNOWN_ACCOUNTS_COOKIE,
    cookie,
    knownAccountsCookieOptions(deps.config.issuer.startsWith('https:'), deps.config.ttl.sessionAbsolute),
  );
  const prompts = requestedPrompts(interaction.details);
  const result = {
    login: { accountId: userId, amr },
    ...(prompts.has('select_account') || interaction.details.prompt.name === 'select_account'
      ? { select_account: {} }
      : {}),
    ...(prompts.has('create') || interaction.details.prompt.name === 'create' ? { create: {} } : {}),
    ...(prompts.has('consent') ? { consent: {} } : {}),
  };
  if (await refuseSignIn(deps, interaction, reply, userId, result)) return reply;
  await completePendingLink(deps, request, reply, interaction.uid, userId);
  return finish(interaction, reply, result);
}
