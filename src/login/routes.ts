// The minimal login (issue 3 §9): user name + password, so the flows run end to end. The login pages issue
// replaces it with the full experience at the same URL (interactions at /ui/login/:uid).
import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app.ts';
import type { Oidc } from '../oidc/plugin.ts';
import { INTERACTION_PATH } from '../oidc/provider.ts';
import { findUserByLoginName } from '../users/lookup.ts';
import { verifyDecoy, verifyPassword } from '../users/passwords.ts';

const TEMPLATE = readFileSync(new URL('../../views/login-minimal.html', import.meta.url), 'utf8');
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Prompts the login page resolves together with the login itself (first-party apps: no consent screen).
const RESOLVED_WITH_LOGIN = ['consent', 'select_account', 'create'];

export async function registerMinimalLogin(app: FastifyInstance, deps: AppDeps, oidc: Oidc): Promise<void> {
  await app.register(async (ui) => {
    await ui.register(formbody, { bodyLimit: 16 * 1024 });
    ui.addHook('onSend', async (_request, reply) => {
      // no form-action: Chromium applies it to the redirects after the submit, which end at the app
      reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', 'no-store');
    });

    ui.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
      const details = await interaction(request, reply, oidc);
      if (!details) return;
      if (details.prompt.name === 'consent' && details.session?.accountId) {
        return finish(request, reply, oidc, details.prompt.name, details.session.accountId);
      }
      return render(reply, request.params.uid, String(details.params.login_hint ?? ''), 200);
    });

    ui.post<{ Params: { uid: string }; Body: { loginName?: unknown; password?: unknown } }>(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
      const details = await interaction(request, reply, oidc);
      if (!details) return;
      const loginName = typeof request.body?.loginName === 'string' ? request.body.loginName.trim() : '';
      const password = typeof request.body?.password === 'string' ? request.body.password : '';
      const user = loginName ? await findUserByLoginName(deps.db, loginName) : undefined;
      const ok = user?.type === 'human' && user.state === 'active' && user.password_hash
        ? await verifyPassword(password, user.password_hash)
        : await verifyDecoy(password);
      // one message for unknown users and wrong passwords (security.md §17)
      if (!ok || !user) return render(reply, request.params.uid, loginName, 401, 'Login name or password is wrong.');
      return finish(request, reply, oidc, details.prompt.name, user.id);
    });
  });
}

type Details = Awaited<ReturnType<ReturnType<Oidc['provider']>['interactionDetails']>>;

async function interaction(request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply, oidc: Oidc): Promise<Details | undefined> {
  try {
    const details = await oidc.provider().interactionDetails(request.raw, reply.raw);
    if (details.uid === request.params.uid) return details;
  } catch { /* expired or unknown interaction: shown below */ }
  reply.code(400).type('text/html').send('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><h1>The login request expired or is unknown. Start again from the application.</h1></body></html>');
  return undefined;
}

async function finish(request: FastifyRequest, reply: FastifyReply, oidc: Oidc, prompt: string, accountId: string) {
  const result: Record<string, unknown> = { login: { accountId } };
  if (RESOLVED_WITH_LOGIN.includes(prompt)) result[prompt] = {};
  const returnTo = await oidc.provider().interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
  return reply.redirect(returnTo, 303);
}

function render(reply: FastifyReply, uid: string, loginName: string, status: number, error?: string) {
  const html = TEMPLATE
    .replace('{{error}}', error ? `<p role="alert">${escapeHtml(error)}</p>` : '')
    .replace('{{action}}', `${INTERACTION_PATH}/${encodeURIComponent(uid)}`)
    .replace('{{loginName}}', escapeHtml(loginName));
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}
