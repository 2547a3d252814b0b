// The account's second factors (/ui/account/factors): add an authenticator app (QR code, confirmed by a
// first code; the first factor brings ten recovery codes, shown once), remove it, and renew the recovery codes.
// Adding, removing and renewing ask for the current password or a code of a factor the user has, counted toward
// the lockout like a sign-in (account/confirm.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Code } from '../platform/errors.ts';
import { format, type Texts } from '../views/i18n.ts';
import { formField } from '../web/forms.ts';
import { addMyOtp, OtpCheckLocked, pendingOtp, removeOtp, verifyMyOtp, type NewOtp } from '../factors/otp.ts';
import { renewRecoveryCodes } from '../factors/recovery-codes.ts';
import { countRecoveryCodes } from '../factors/queries.ts';
import { qrPath } from '../factors/qr.ts';
import { otpKind } from '../second-factors/otp-kind.ts';
import { openTicket, sealTicket } from '../web/ticket.ts';
import { accountPost, type SignedIn, signedInUser } from './account-page.ts';
import { confirmMode, refusedConfirmation } from './confirm.ts';
import { type AccountDeps, type AccountHandler, pageBasics, queryText } from './deps.ts';
import { type AccountSession, signInRedirect } from './session.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';
import { AccountFactorsPage } from '../views/account-factors.ts';
import { FactorSetupPage, RecoveryCodesPage } from '../views/factors.ts';

export const FACTORS_PATH = `${ACCOUNT_PATH}/factors`;

const NOTICES: Record<string, string> = { otp: 'factorAdded', removed: 'factorRemoved' };

async function renderFactors(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  { session, user }: SignedIn,
  view: { status?: number; notice?: string; alert?: string } = {},
): Promise<FastifyReply> {
  const { locale, csrf } = pageBasics(deps, request, reply);
  return deps.pages.send(
    reply,
    deps.pages.render(view.status ?? 200, locale, AccountFactorsPage, 'factorsTitle', {
      csrf,
      notice: view.notice,
      alert: view.alert,
      otpReady: user.factor_kinds.includes(otpKind.kind),
      recoveryCodesLeft: await countRecoveryCodes(deps.db, user.id),
      accountUrl: ACCOUNT_PATH,
      confirm: confirmMode(user, session),
    }),
  );
}

export const showFactors: AccountHandler = async (deps, request, reply) => {
  const signedIn = await signedInUser(deps, request, reply);
  if (!signedIn) return signInRedirect(deps.config.issuer, reply);
  const { locale } = pageBasics(deps, request, reply);
  const key = NOTICES[queryText(request, 'done')];
  return renderFactors(deps, request, reply, signedIn, { notice: key && deps.pages.texts(locale)[key] });
};

const SETUP_PURPOSE = 'account-otp-setup';

/** The setup page's ticket (web/ticket.ts): the secret it shows, sealed and bound to this session for an
 *  interaction's lifetime. Only with it does a wrong first code show the secret again, so a session that did not
 *  start (and confirm) the setup never reads it, nor one with an old page. */
const setupTicket = (deps: AccountDeps, session: AccountSession, otp: NewOtp) =>
  sealTicket(deps, SETUP_PURPOSE, session.uid, { secret: otp.secret });

function showsSetup(deps: AccountDeps, request: FastifyRequest, session: AccountSession, pending: NewOtp): boolean {
  const ticket = openTicket<{ secret?: unknown }>(deps, SETUP_PURPOSE, session.uid, formField(request, 'ticket'));
  return ticket?.secret === pending.secret;
}

function renderSetup(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  session: AccountSession,
  otp: NewOtp,
  alert?: string,
) {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const qr = qrPath(otp.url);
  return deps.pages.send(
    reply,
    deps.pages.render(alert ? 400 : 200, locale, FactorSetupPage, 'factorSetupTitle', {
      action: `${FACTORS_PATH}/otp/verify`,
      csrf,
      ticket: setupTicket(deps, session, otp),
      secret: otp.secret.match(/.{1,4}/g)!.join(' '),
      url: otp.url,
      qrSize: qr.size,
      qrPath: qr.path,
      alert,
    }),
  );
}

function renderCodes(deps: AccountDeps, request: FastifyRequest, reply: FastifyReply, codes: string[]) {
  const { locale, csrf } = pageBasics(deps, request, reply);
  return deps.pages.send(
    reply,
    deps.pages.render(200, locale, RecoveryCodesPage, 'recoveryCodesTitle', {
      action: FACTORS_PATH,
      csrf,
      codes,
      continueUrl: FACTORS_PATH,
    }),
  );
}

const done = (reply: FastifyReply, what: keyof typeof NOTICES) => reply.redirect(`${FACTORS_PATH}?done=${what}`, 303);

/** A change that needs confirmation (adding the app too): refused with the reason on the page, else `change`. */
function confirmedPost(
  change: (
    deps: AccountDeps,
    request: FastifyRequest,
    reply: FastifyReply,
    signedIn: SignedIn,
  ) => Promise<FastifyReply>,
): AccountHandler {
  return accountPost(async (deps, request, reply, signedIn) => {
    const refused = await refusedConfirmation(deps, request, reply, signedIn);
    if (refused) return renderFactors(deps, request, reply, signedIn, refused);
    return change(deps, request, reply, signedIn);
  });
}

export const submitAddOtp = confirmedPost(async (deps, request, reply, { session, user }) => {
  try {
    return renderSetup(deps, request, reply, session, await addMyOtp(deps, user.id));
  } catch (error) {
    if (error instanceof AppError && error.code === Code.AlreadyExists) return done(reply, 'otp');
    throw error;
  }
});

// The app's first code: the pending secret exists only after a confirmed start (submitAddOtp)
export const submitVerifyOtp = accountPost(async (deps, request, reply, signedIn) => {
  const { session, user, t } = signedIn;
  try {
    await verifyMyOtp(deps, user.id, formField(request, 'code') ?? '', request.ip);
  } catch (error) {
    const pending = await pendingOtp(deps, user);
    if (error instanceof OtpCheckLocked) {
      reply.header('retry-after', String(error.retryAfter));
      return renderFactors(deps, request, reply, signedIn, { status: 429, alert: locked(t, error.retryAfter) });
    }
    if (pending && error instanceof AppError && error.code === Code.InvalidArgument)
      return showsSetup(deps, request, session, pending)
        ? renderSetup(deps, request, reply, session, pending, t.errorFactorCode)
        : renderFactors(deps, request, reply, signedIn, { status: 400, alert: t.errorFactorCode });
    // none to confirm (NOT_FOUND) or confirmed already (FAILED_PRECONDITION, as ZITADEL answers it)
    if (error instanceof AppError && (error.code === Code.NotFound || error.code === Code.FailedPrecondition))
      return done(reply, 'otp');
    throw error;
  }
  // the first factor brings recovery codes, shown this once
  if ((await countRecoveryCodes(deps.db, user.id)) > 0) return done(reply, 'otp');
  return renderCodes(deps, request, reply, await renewRecoveryCodes(deps.db, deps.secrets, user.id));
});

const locked = (t: Texts, seconds: number) => format(t.errorLocked!, { seconds });

export const submitRemoveOtp = confirmedPost(async (deps, _request, reply, { user }) => {
  try {
    await removeOtp(deps.db, user, user.id);
  } catch (error) {
    if (!(error instanceof AppError && error.code === Code.NotFound)) throw error;
  }
  return done(reply, 'removed');
});

export const submitRecoveryCodes = confirmedPost(async (deps, request, reply, { user }) => {
  // codes stand in for a factor: without one there is nothing to recover
  if (!user.factor_kinds.length) return done(reply, 'removed');
  return renderCodes(deps, request, reply, await renewRecoveryCodes(deps.db, deps.secrets, user.id));
});
