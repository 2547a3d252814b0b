// Passkeys on the account page. Adding one: the name is posted from the account page, which answers with
// the passkey page (the one script) carrying a challenge bound to this browser's session; the browser's answer is
// posted back and verified. Adding and removing one ask for the password or a code first, checked like a sign-in
// (hashing queue, lockout; account/confirm.ts): the ceremony's challenge is issued only after it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Code } from '../platform/errors.ts';
import { format } from '../views/i18n.ts';
import { formField } from '../web/forms.ts';
import { credentialOf, rpOf } from '../web/passkey-ceremony.ts';
import { finishRegistration, PASSKEY_NAME_MAX, removePasskey, startRegistration } from '../passkeys/service.ts';
import { loginName } from '../users/lookup.ts';
import { accountPost, done, renderAccount } from './account-page.ts';
import { refusedConfirmation } from './confirm.ts';
import { type AccountDeps, pageBasics } from './deps.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';
import { PasskeyPage } from '../views/passkeys.ts';

const invalid = (error: unknown) => error instanceof AppError && error.code === Code.InvalidArgument;

export const submitNewPasskey = accountPost(async (deps, request, reply, signedIn) => {
  const { session, user, t } = signedIn;
  const name = (formField(request, 'name') ?? '').trim();
  if (!name || [...name].length > PASSKEY_NAME_MAX) {
    const passkeyName = name ? format(t.errorTooLong!, { max: PASSKEY_NAME_MAX }) : t.errorRequired;
    return renderAccount(deps, request, reply, signedIn, { status: 400, errors: { passkeyName } });
  }
  const refused = await refusedConfirmation(deps, request, reply, signedIn);
  if (refused) return renderAccount(deps, request, reply, signedIn, refused);
  const options = await startRegistration(deps.db, rpOf(deps), user, loginName(user), { binding: session.uid });
  return passkeyPage(deps, request, reply, { name, options: JSON.stringify(options) });
});

export const submitPasskey = accountPost(async (deps, request, reply, signedIn) => {
  const { session, user, t } = signedIn;
  try {
    await finishRegistration(
      deps.db,
      rpOf(deps),
      user,
      { binding: session.uid },
      {
        name: formField(request, 'name') ?? '',
        credential: credentialOf(request),
      },
    );
  } catch (error) {
    if (!invalid(error)) throw error;
    return renderAccount(deps, request, reply, signedIn, { status: 400, alert: t.passkeyFailed });
  }
  return done(reply, 'passkeyAdded');
});

export const submitRemovePasskey = accountPost(async (deps, request, reply, signedIn) => {
  const { user } = signedIn;
  const refused = await refusedConfirmation(deps, request, reply, signedIn);
  if (refused) return renderAccount(deps, request, reply, signedIn, refused);
  try {
    await removePasskey(deps.db, user, formField(request, 'tokenId') ?? '', user.id);
  } catch (error) {
    if (!(error instanceof AppError && error.code === Code.NotFound)) throw error;
    return reply.redirect(ACCOUNT_PATH, 303);
  }
  return done(reply, 'passkeyRemoved');
});

function passkeyPage(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  ceremony: { name: string; options: string },
): FastifyReply {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  return deps.pages.send(
    reply,
    deps.pages.renderWithScript(200, locale, PasskeyPage, 'passkeyAddTitle', {
      heading: t.passkeyAddTitle,
      lead: t.passkeyAddLead,
      button: t.passkeyCreate,
      ceremony: 'create',
      options: ceremony.options,
      name: ceremony.name,
      action: `${ACCOUNT_PATH}/passkeys`,
      csrf,
      backUrl: ACCOUNT_PATH,
    }),
  );
}
