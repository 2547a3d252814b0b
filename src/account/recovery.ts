// The pages a mail leads to, used without a session: the e-mail verification link, "forgot password"
// and the password reset. The reset request answers the same whether the login name is known or not
// (no user name leaks), and is limited per client address here and per account in passwords/reset.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Code } from '../platform/errors.ts';
import { HashRefusal } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { findUserByLoginName } from '../users/lookup.ts';
import { verifyEmail } from '../emails/service.ts';
import { requestPasswordReset, resetPasswordWithCode } from '../passwords/reset.ts';
import { formField } from '../web/forms.ts';
import { passwordHelp, policyRefusal } from '../web/password-rules.ts';
import { checkAccountPost } from './csrf.ts';
import { type AccountDeps, type AccountHandler, pageBasics, queryText } from './deps.ts';
import { codeField, field, newPasswordField } from './fields.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';
import { MessagePage } from '../views/messages.ts';
import { ForgotPasswordPage, PasswordResetPage, VerifyEmailPage } from '../views/account.ts';
import { getPasswordPolicy } from '../passwords/current.ts';

const LOGIN_NAME_MAX = 400;

function message(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  keys: { title: string; message: string },
): FastifyReply {
  const { locale } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  return deps.pages.send(
    reply,
    deps.pages.render(200, locale, MessagePage, keys.title, {
      title: t[keys.title],
      message: t[keys.message],
      link: { href: ACCOUNT_PATH, label: t.toAccount },
    }),
  );
}

function renderVerify(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { user: string; code: string },
  status = 200,
  alert?: string,
): FastifyReply {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  const page = { csrf, user: input.user, codeField: codeField(t, input.code), alert };
  return deps.pages.send(reply, deps.pages.render(status, locale, VerifyEmailPage, 'verifyTitle', page));
}

/** The mail's link: a page that posts the code, so that link scanners which open it verify nothing. */
export const showVerifyEmail: AccountHandler = async (deps, request, reply) =>
  renderVerify(deps, request, reply, { user: queryText(request, 'user', 64), code: queryText(request, 'code', 32) });

export const submitVerifyEmail: AccountHandler = async (deps, request, reply) => {
  checkAccountPost(deps.secrets, request, deps.config.issuer);
  const input = { user: (formField(request, 'user') ?? '').slice(0, 64), code: formField(request, 'code') ?? '' };
  try {
    await verifyEmail(deps, input.user, input.code);
  } catch (error) {
    if (!(error instanceof AppError && error.code === Code.InvalidArgument)) throw error;
    const t = deps.pages.texts(pageBasics(deps, request, reply).locale);
    return renderVerify(deps, request, reply, input, 400, t.errorInvalidCode);
  }
  return message(deps, request, reply, { title: 'verifyDoneTitle', message: 'verifyDone' });
};

function renderForgot(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  loginName: string,
  status = 200,
  alert?: string,
): FastifyReply {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  const loginNameField = field(t, 'loginName', 'loginNameLabel', {
    autocomplete: 'username',
    maxLength: LOGIN_NAME_MAX,
    value: loginName,
  });
  const page = { csrf, loginNameField, alert };
  return deps.pages.send(reply, deps.pages.render(status, locale, ForgotPasswordPage, 'forgotTitle', page));
}

export const showForgotPassword: AccountHandler = async (deps, request, reply) =>
  renderForgot(deps, request, reply, queryText(request, 'loginName', LOGIN_NAME_MAX));

export const submitForgotPassword: AccountHandler = async (deps, request, reply) => {
  checkAccountPost(deps.secrets, request, deps.config.issuer);
  const loginName = (formField(request, 'loginName') ?? '').trim().slice(0, LOGIN_NAME_MAX);
  const t = deps.pages.texts(pageBasics(deps, request, reply).locale);
  if (!loginName) return renderForgot(deps, request, reply, '', 400, t.errorLoginNameRequired);
  const limit = deps.resets.hit(request.ip);
  if (!limit.allowed) {
    reply.header('retry-after', String(limit.retryAfterSeconds));
    return renderForgot(deps, request, reply, loginName, 429, t.errorMailLimit);
  }
  await requestPasswordReset(deps, loginName);
  return renderReset(deps, request, reply, { loginName, code: '' }, { notice: t.forgotSent });
};

interface ResetInput {
  /** From the mail's link. */
  user?: string;
  /** Typed on the "forgot password" page, when the code is typed from the mail. */
  loginName?: string;
  code: string;
}

async function renderReset(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  input: ResetInput,
  view: { status?: number; notice?: string; alert?: string; passwordError?: string } = {},
): Promise<FastifyReply> {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  return deps.pages.send(
    reply,
    deps.pages.render(view.status ?? 200, locale, PasswordResetPage, 'resetTitle', {
      csrf,
      user: input.user,
      loginName: input.loginName,
      notice: view.notice,
      alert: view.alert,
      codeField: codeField(t, input.code),
      newPasswordField: newPasswordField(t, passwordHelp(t, await getPasswordPolicy(deps.db)), view.passwordError),
    }),
  );
}

export const showPasswordReset: AccountHandler = async (deps, request, reply) =>
  renderReset(deps, request, reply, { user: queryText(request, 'user', 64), code: queryText(request, 'code', 32) });

export const submitPasswordReset: AccountHandler = async (deps, request, reply) => {
  checkAccountPost(deps.secrets, request, deps.config.issuer);
  const t = deps.pages.texts(pageBasics(deps, request, reply).locale);
  const input: ResetInput = {
    user: formField(request, 'user')?.slice(0, 64) || undefined,
    loginName: formField(request, 'loginName')?.slice(0, LOGIN_NAME_MAX) || undefined,
    code: formField(request, 'code') ?? '',
  };
  const slot = deps.hashing.tryAdmit(request.ip);
  if (slot instanceof HashRefusal) return renderReset(deps, request, reply, input, answerHashRefusal(reply, slot, t));
  try {
    // an unknown login name fails like a wrong code, after the same work, so no user name leaks
    const userId = input.user ?? (input.loginName && (await findUserByLoginName(deps.db, input.loginName))?.id);
    await resetPasswordWithCode(deps, slot.hash, {
      userId: userId || '',
      code: input.code,
      newPassword: formField(request, 'newPassword') ?? '',
      field: 'newPassword',
    });
  } catch (error) {
    const refused = policyRefusal(t, error);
    if (refused) return renderReset(deps, request, reply, input, { status: 400, passwordError: refused });
    if (!(error instanceof AppError && error.code === Code.InvalidArgument)) throw error;
    return renderReset(deps, request, reply, input, { status: 400, alert: t.errorInvalidCode });
  } finally {
    slot.release();
  }
  return message(deps, request, reply, { title: 'resetDoneTitle', message: 'resetDone' });
};
