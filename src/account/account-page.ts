// The account page /ui/account: profile (UpdateMyProfile's fields), e-mail address (email-section.ts),
// password change and sign-out, for the user of the browser's session. Every change is a form POST answered with a
// 303 back to the page (RFC 9700 §4.12), or the page again with the field's error. A change of the e-mail address
// asks for the password or a code first, the password change for the current password (OWASP ASVS 5.0 §7.5.1).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, Code } from '../platform/errors.ts';
import { findActiveUser, loginName, type UserRow } from '../users/lookup.ts';
import { updateMyProfile } from '../users/service.ts';
import type { Gender } from '../users/queries.ts';
import { changeMyPassword, PasswordCheckLocked } from '../passwords/service.ts';
import { HashRefusal } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { format, SUPPORTED_LOCALES, type Texts } from '../views/i18n.ts';
import { formField } from '../web/forms.ts';
import { passwordHelp, policyRefusal } from '../web/password-rules.ts';
import { checkAccountPost } from './csrf.ts';
import { type AccountDeps, type AccountHandler, pageBasics, queryText } from './deps.ts';
import { codeField, field, newPasswordField } from './fields.ts';
import { getPasswordPolicy } from '../passwords/current.ts';
import { accountSession, signInRedirect, signOutUrl, type AccountSession } from './session.ts';
import { ACCOUNT_PATH } from '../web/urls.ts';
import { passkeysSection } from './passkeys-section.ts';
import { confirmMode } from './confirm.ts';
import { ErrorPage } from '../views/messages.ts';
import { AccountPage } from '../views/account.ts';

const GENDERS: Record<Gender, string> = {
  GENDER_UNSPECIFIED: 'genderUnspecified',
  GENDER_FEMALE: 'genderFemale',
  GENDER_MALE: 'genderMale',
  GENDER_DIVERSE: 'genderDiverse',
};

/** What a saved change says on the page it returns to (?done=). */
const NOTICES: Record<string, string> = {
  profile: 'savedProfile',
  unchanged: 'notChanged',
  email: 'emailSent',
  verified: 'verifyDone',
  password: 'passwordChanged',
  passkeyAdded: 'passkeyAdded',
  passkeyRemoved: 'passkeyRemoved',
};

type Errors = Partial<
  Record<'firstName' | 'lastName' | 'displayName' | 'nickName' | 'email' | 'code' | 'passkeyName', string>
> & {
  currentPassword?: string;
  newPassword?: string;
};

export interface View {
  status?: number;
  notice?: string;
  alert?: string;
  errors?: Errors;
  values?: Record<string, string>;
}

/** The browser's session and its user. */
export interface SignedIn {
  session: AccountSession;
  user: UserRow;
}

export async function signedInUser(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedIn | undefined> {
  const session = await accountSession(deps.oidc, request, reply);
  const user = session && (await findActiveUser(deps.db, session.userId));
  return session && user?.type === 'human' ? { session, user } : undefined;
}

export async function renderAccount(
  deps: AccountDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  { session, user }: SignedIn,
  view: View = {},
): Promise<FastifyReply> {
  const { locale, csrf } = pageBasics(deps, request, reply);
  const t = deps.pages.texts(locale);
  const errors = view.errors ?? {};
  const value = (name: string, stored: string | null) => view.values?.[name] ?? stored ?? '';
  const text = (name: keyof Errors, labelKey: string, stored: string | null, autocomplete: string, required = true) =>
    field(t, name, labelKey, { value: value(name, stored), error: errors[name], autocomplete, required });
  const language = value('preferredLanguage', user.preferred_language);
  const languages = [...new Set([...SUPPORTED_LOCALES, ...(language ? [language] : [])])];
  const gender = value('gender', user.gender);
  return deps.pages.send(
    reply,
    deps.pages.render(view.status ?? 200, locale, AccountPage, 'accountTitle', {
      csrf,
      loginName: loginName(user),
      initial: [...(user.display_name ?? '?')][0]?.toUpperCase(),
      signOutUrl: signOutUrl(deps.config.issuer),
      notice: view.notice && format(view.notice, { email: user.email ?? '' }),
      alert: view.alert,
      profile: {
        firstName: text('firstName', 'firstNameLabel', user.first_name, 'given-name'),
        lastName: text('lastName', 'lastNameLabel', user.last_name, 'family-name'),
        displayName: text('displayName', 'displayNameLabel', user.display_name, 'nickname'),
        nickName: text('nickName', 'nickNameLabel', user.nick_name, 'off', false),
      },
      languages: languages.map((l) => ({ value: l, label: l, selected: l === language })),
      genders: Object.entries(GENDERS).map(([g, key]) => ({ value: g, label: t[key], selected: g === gender })),
      email: user.email,
      emailVerified: user.email_verified,
      codeField: codeField(t, '', errors.code),
      emailField: field(t, 'email', 'emailLabel', {
        id: 'new-email',
        type: 'email',
        autocomplete: 'email',
        value: value('email', user.email),
        error: errors.email,
      }),
      currentPasswordField: field(t, 'currentPassword', 'currentPasswordLabel', {
        type: 'password',
        autocomplete: 'current-password',
        maxLength: 1024,
        error: errors.currentPassword,
      }),
      newPasswordField: newPasswordField(t, passwordHelp(t, await getPasswordPolicy(deps.db)), errors.newPassword),
      ...(await passkeysSection(deps.db, t, user.id, errors.passkeyName)),
      confirm: confirmMode(user, session),
    }),
  );
}

export const showAccount: AccountHandler = async (deps, request, reply) => {
  const signedIn = await signedInUser(deps, request, reply);
  if (!signedIn) return signInRedirect(deps.config.issuer, reply);
  const { locale } = pageBasics(deps, request, reply);
  const key = NOTICES[queryText(request, 'done')];
  return renderAccount(deps, request, reply, signedIn, { notice: key && deps.pages.texts(locale)[key] });
};

/** The callback of the account page's sign-in: the session exists now (or the user cancelled). */
export const accountCallback: AccountHandler = async (deps, request, reply) => {
  if (queryText(request, 'error')) {
    const { locale } = pageBasics(deps, request, reply);
    const t = deps.pages.texts(locale);
    const page = { title: t.errorTitle, message: t.errorGeneric, code: queryText(request, 'error', 64) };
    return deps.pages.send(reply, deps.pages.render(400, locale, ErrorPage, 'errorTitle', page));
  }
  return reply.redirect(ACCOUNT_PATH, 303);
};

/** "Sign in again": a user with nothing to type confirms changes by a fresh sign-in (account/confirm.ts). */
export const reauthenticate: AccountHandler = async (deps, _request, reply) =>
  signInRedirect(deps.config.issuer, reply, true);

/** A POST of the page: checked, then `change` with the signed-in user; no session: back to sign in. */
export function accountPost(
  change: (
    deps: AccountDeps,
    request: FastifyRequest,
    reply: FastifyReply,
    signedIn: SignedIn & { t: Texts },
  ) => Promise<FastifyReply>,
): AccountHandler {
  return async (deps, request, reply) => {
    checkAccountPost(deps.secrets, request, deps.config.issuer);
    const signedIn = await signedInUser(deps, request, reply);
    if (!signedIn) return reply.redirect(ACCOUNT_PATH, 303);
    const { locale } = pageBasics(deps, request, reply);
    return change(deps, request, reply, { ...signedIn, t: deps.pages.texts(locale) });
  };
}

export const done = (reply: FastifyReply, what: keyof typeof NOTICES) =>
  reply.redirect(`${ACCOUNT_PATH}?done=${what}`, 303);
export const isCode = (error: unknown, code: number) => error instanceof AppError && error.code === code;

const name = z.string().trim().min(1).max(200);
const profileSchema = z.object({
  firstName: name,
  lastName: name,
  displayName: name,
  nickName: z.string().trim().max(200),
  preferredLanguage: z.string().regex(/^[A-Za-z]{0,8}(-[A-Za-z0-9]{1,8})?$/),
  gender: z.enum(Object.keys(GENDERS) as [Gender, ...Gender[]]),
});

export const submitProfile = accountPost(async (deps, request, reply, signedIn) => {
  const { user, t } = signedIn;
  const values = Object.fromEntries(Object.keys(profileSchema.shape).map((k) => [k, formField(request, k) ?? '']));
  const parsed = profileSchema.safeParse(values);
  if (!parsed.success) {
    const errors: Errors = {};
    for (const issue of parsed.error.issues) {
      const key = issue.path[0] as keyof Errors;
      errors[key] ??= issue.code === 'too_big' ? format(t.errorTooLong!, { max: 200 }) : t.errorRequired!;
    }
    return renderAccount(deps, request, reply, signedIn, { status: 400, errors, values });
  }
  try {
    await updateMyProfile(deps.db, user.id, parsed.data);
  } catch (error) {
    if (isCode(error, Code.FailedPrecondition)) return done(reply, 'unchanged');
    throw error;
  }
  return done(reply, 'profile');
});

export const submitPassword = accountPost(async (deps, request, reply, signedIn) => {
  const { session, user, t } = signedIn;
  // one place in the hashing queue for the current password's check and the new password's hash
  // (passwords/service.ts changeMyPassword)
  const slot = deps.hashing.tryAdmit(request.ip, 2);
  if (slot instanceof HashRefusal)
    return renderAccount(deps, request, reply, signedIn, answerHashRefusal(reply, slot, t));
  try {
    await changeMyPassword(
      { db: deps.db, lockout: deps.config.lockout, mailer: deps.mailer },
      slot,
      { userId: user.id, ip: request.ip, keepSessionUid: session.uid },
      {
        oldPassword: formField(request, 'currentPassword') ?? '',
        newPassword: formField(request, 'newPassword') ?? '',
        field: 'newPassword',
      },
    );
  } catch (error) {
    const refused = policyRefusal(t, error);
    if (refused)
      return renderAccount(deps, request, reply, signedIn, { status: 400, errors: { newPassword: refused } });
    if (error instanceof PasswordCheckLocked) {
      reply.header('retry-after', String(error.retryAfter));
      const alert = format(t.errorLocked!, { seconds: error.retryAfter });
      return renderAccount(deps, request, reply, signedIn, { status: 429, alert });
    }
    if (isCode(error, Code.InvalidArgument)) {
      const errors = { currentPassword: t.errorCurrentPassword };
      return renderAccount(deps, request, reply, signedIn, { status: 400, errors });
    }
    throw error;
  } finally {
    slot.release();
  }
  return done(reply, 'password');
});
