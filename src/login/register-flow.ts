// Registration (prompt=create): a new human in the instance's default organization, signed in right
// away; the flow then continues to the application.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { registrationSchema, NAME_MAX_LENGTH } from '../users/schema.ts';
import { registerHuman } from '../passwords/register.ts';
import { USER_NAME_REFUSED } from '../users/user-name.ts';
import { HashRefusal, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type HashSlot } from '../users/passwords.ts';
import { answerHashRefusal } from '../web/hash-refusal.ts';
import { AppError, Code } from '../platform/errors.ts';
import { format, type Texts } from '../views/i18n.ts';
import {
  interactionPageOf,
  loadInteraction,
  loadPostedInteraction,
  type InteractionPage,
  type LoginDeps,
} from './interaction.ts';
import { formField } from '../web/forms.ts';
import { afterFirstFactorOf } from './second-factor-flow.ts';
import { getLoginPolicy } from '../login-policy/current.ts';
import { passwordHelp, policyRefusal } from '../web/password-rules.ts';
import { getPasswordPolicy } from '../passwords/current.ts';
import type { FieldProps } from '../views/fields.ts';
import { RegisterPage, type RegisterProps } from '../views/login.ts';
import { ErrorPage } from '../views/messages.ts';

const FIELDS = [
  { name: 'firstName', label: 'firstNameLabel', type: 'text', autocomplete: 'given-name', maxLength: NAME_MAX_LENGTH },
  { name: 'lastName', label: 'lastNameLabel', type: 'text', autocomplete: 'family-name', maxLength: NAME_MAX_LENGTH },
  { name: 'email', label: 'emailLabel', type: 'email', autocomplete: 'email', maxLength: NAME_MAX_LENGTH },
  { name: 'userName', label: 'userNameLabel', type: 'text', autocomplete: 'username', maxLength: NAME_MAX_LENGTH },
  {
    name: 'password',
    label: 'passwordLabel',
    type: 'password',
    autocomplete: 'new-password',
    maxLength: PASSWORD_MAX_LENGTH,
  },
] as const;
type FieldName = (typeof FIELDS)[number]['name'];
type Values = Partial<Record<FieldName, string>>;
type Errors = Partial<Record<FieldName, string>>;

export async function showRegistration(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
  status = 200,
  values: Values = {},
  errors: Errors = {},
  alert?: string,
): Promise<FastifyReply> {
  const t = deps.pages.texts(i.locale);
  const help = passwordHelp(t, await getPasswordPolicy(deps.db));
  const firstInvalid = FIELDS.find((f) => errors[f.name])?.name ?? 'firstName';
  const fields = Object.fromEntries(
    FIELDS.map((f): [FieldName, FieldProps] => [
      f.name,
      {
        ...f,
        id: f.name,
        required: true,
        label: t[f.label] ?? f.label,
        // A password is never sent back into the page.
        value: f.name === 'password' ? '' : (values[f.name] ?? ''),
        help: f.name === 'password' ? help : undefined,
        error: errors[f.name],
        autofocus: f.name === firstInvalid,
      },
    ]),
  ) as RegisterProps['fields'];
  return deps.pages.send(
    reply,
    deps.pages.render(status, i.locale, RegisterPage, 'registerTitle', {
      action: i.urls.register,
      csrf: i.csrf,
      fields,
      loginUrl: i.urls.loginName,
      alert,
    }),
  );
}

export async function showRegister(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  return showOpenRegistration(deps, await loadInteraction(deps, request, reply), reply);
}

/** The form, unless the login policy's allowRegister is off. */
export async function showOpenRegistration(
  deps: LoginDeps,
  i: InteractionPage,
  reply: FastifyReply,
): Promise<FastifyReply> {
  return (await registrationClosed(deps, i, reply)) ? reply : showRegistration(deps, i, reply);
}

/** Sends the "registration closed" page and says true. A boolean, not the reply: a sent Fastify reply awaited
 *  resolves to undefined (refused.ts). */
async function registrationClosed(deps: LoginDeps, i: InteractionPage, reply: FastifyReply): Promise<boolean> {
  if ((await getLoginPolicy(deps.db)).allowRegister) return false;
  const t = deps.pages.texts(i.locale);
  const page = { title: t.errorTitle, message: t.errorRegistrationClosed, code: 'access_denied' };
  deps.pages.send(reply, deps.pages.render(403, i.locale, ErrorPage, 'errorTitle', page));
  return true;
}

export async function submitRegister(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const values = Object.fromEntries(FIELDS.map((f) => [f.name, formField(request, f.name) ?? ''])) as Record<
    FieldName,
    string
  >;
  // The place in the hashing queue comes first, as for the password page: over the bounds, the form
  // comes back at once, before any database work.
  const slot = deps.hashing.tryAdmit(request.ip);
  if (slot instanceof HashRefusal) {
    const page = interactionPageOf(deps, request);
    const { status, alert } = answerHashRefusal(reply, slot, deps.pages.texts(page.locale));
    return showRegistration(deps, page, reply, status, values, {}, alert);
  }
  try {
    return await register(deps, request, reply, values, slot);
  } finally {
    slot.release();
  }
}

async function register(
  deps: LoginDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  values: Record<FieldName, string>,
  slot: HashSlot,
): Promise<FastifyReply> {
  const interaction = await loadPostedInteraction(deps, request, reply);
  if (await registrationClosed(deps, interaction, reply)) return reply;
  const t = deps.pages.texts(interaction.locale);
  const parsed = registrationSchema.safeParse(values);
  if (!parsed.success) {
    const errors: Errors = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as FieldName;
      errors[field] ??= fieldMessage(t, field, issue.code, values[field]);
    }
    return showRegistration(deps, interaction, reply, 400, values, errors);
  }
  // Per address: every well-formed attempt counts, a taken name included, so neither creating
  // accounts nor probing names scales with a script.
  const limit = await deps.registrations.hit(request.ip);
  if (!limit.allowed) {
    reply.header('retry-after', String(limit.retryAfterSeconds));
    return showRegistration(
      deps,
      interaction,
      reply,
      429,
      values,
      {},
      format(t.errorRegistrationLimit!, { minutes: Math.ceil(limit.retryAfterSeconds / 60) }),
    );
  }
  try {
    const { userId } = await registerHuman(
      deps.db,
      deps.instance.default_org_id,
      parsed.data,
      interaction.locale,
      slot.hash,
      deps,
    );
    return await afterFirstFactorOf(deps, request, reply, interaction, userId);
  } catch (error) {
    if (error instanceof AppError && error.code === Code.AlreadyExists) {
      return showRegistration(deps, interaction, reply, 409, values, { userName: t.errorUserNameTaken });
    }
    const refused = policyRefusal(t, error);
    if (refused) return showRegistration(deps, interaction, reply, 400, values, { password: refused });
    if (error instanceof AppError && error.id === USER_NAME_REFUSED) {
      return showRegistration(deps, interaction, reply, 400, values, { userName: t.errorUserNameReserved });
    }
    throw error;
  }
}

function fieldMessage(t: Texts, field: FieldName, code: string, value: string): string {
  if (value.trim() === '' && field !== 'password') return t.errorRequired!;
  if (code === 'too_big')
    return format(t.errorTooLong!, { max: field === 'password' ? PASSWORD_MAX_LENGTH : NAME_MAX_LENGTH });
  if (field === 'password')
    return value === '' ? t.errorRequired! : format(t.errorPasswordShort!, { min: PASSWORD_MIN_LENGTH });
  if (field === 'email') return t.errorEmail!;
  if (field === 'userName') return t.errorUserNameFormat!;
  return t.errorRequired!;
}
