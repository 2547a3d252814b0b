// The account page's e-mail address: a new address, confirmed first by the password or a code
// (OWASP ASVS 5.0 §7.5.1), stored unverified until the code mailed to it is entered; the code sent again on request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Code } from '../platform/errors.ts';
import { changeEmail, parseEmail, resendEmailVerification, TooManyCodes, verifyEmail } from '../emails/service.ts';
import type { Texts } from '../views/i18n.ts';
import { formField } from '../web/forms.ts';
import type { AccountDeps } from './deps.ts';
import { refusedConfirmation } from './confirm.ts';
import { accountPost, done, isCode, renderAccount, type SignedIn } from './account-page.ts';

const emails = (deps: AccountDeps) => ({ db: deps.db, secrets: deps.secrets, mailer: deps.mailer });

/** A new address: checked first (a mistyped one costs no confirmation attempt), then confirmed (account/confirm.ts),
 *  then stored unverified; the previous address, if verified, is told of the change. */
export const submitEmail = accountPost(async (deps, request, reply, signedIn) => {
  const { user, t } = signedIn;
  const email = formField(request, 'email') ?? '';
  const invalidEmail = () =>
    renderAccount(deps, request, reply, signedIn, { status: 400, errors: { email: t.errorEmail }, values: { email } });
  try {
    parseEmail('email', email);
  } catch {
    return invalidEmail();
  }
  const refused = await refusedConfirmation(deps, request, reply, signedIn);
  if (refused) return renderAccount(deps, request, reply, signedIn, { ...refused, values: { email } });
  try {
    await changeEmail(
      emails(deps),
      { userId: user.id },
      { field: 'email', email, verified: false, notifyPrevious: true },
      user.id,
    );
  } catch (error) {
    if (error instanceof TooManyCodes) return mailLimit(deps, request, reply, signedIn);
    if (isCode(error, Code.InvalidArgument)) return invalidEmail();
    if (isCode(error, Code.FailedPrecondition)) return done(reply, 'unchanged');
    throw error;
  }
  return done(reply, 'email');
});

export const submitEmailCode = accountPost(async (deps, request, reply, signedIn) => {
  const { user, t } = signedIn;
  try {
    await verifyEmail(deps, user.id, formField(request, 'code') ?? '');
  } catch (error) {
    if (!isCode(error, Code.InvalidArgument)) throw error;
    return renderAccount(deps, request, reply, signedIn, { status: 400, errors: { code: t.errorInvalidCode } });
  }
  return done(reply, 'verified');
});

export const submitResend = accountPost(async (deps, request, reply, signedIn) => {
  const { user } = signedIn;
  try {
    await resendEmailVerification(emails(deps), { userId: user.id }, user.id);
  } catch (error) {
    if (error instanceof TooManyCodes) return mailLimit(deps, request, reply, signedIn);
    if (isCode(error, Code.FailedPrecondition)) return done(reply, 'unchanged');
    throw error;
  }
  return done(reply, 'email');
});

function mailLimit(deps: AccountDeps, request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn & { t: Texts }) {
  const { t } = signedIn;
  reply.header('retry-after', '3600');
  return renderAccount(deps, request, reply, signedIn, { status: 429, alert: t.errorMailLimit });
}
