// Console area "Policies": the instance's login policy, password complexity and lockout, each as a form
// that shows the values in force and saves through the API's operation (UpdateLoginPolicy,
// UpdatePasswordComplexityPolicy, UpdateLockoutPolicy), the API's refusal shown above the form (400). Organizations
// have no policies of their own: an org's owner reads the instance's through the management service's Get
// operations, read-only. What stays a setting is shown read-only: the check lifetimes (GATEHOUSE_SESSION_ABSOLUTE_TTL)
// and the second factors served (TOTP).
import { AdminService as A } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { MultiFactorType, PasswordlessType, SecondFactorType } from '@zitadel/proto/zitadel/policy_pb.js';
import type { LockoutPolicy, LoginPolicy, PasswordComplexityPolicy } from '@zitadel/proto/zitadel/policy_pb.js';
import { html, type Markup } from '../views/html.ts';
import { format } from '../views/i18n.ts';
import { invalidArgument } from '../platform/errors.ts';
import { Checkbox, Flash, Input, PostForm, Submit } from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, inputError, url } from './page.ts';

type Section = 'login' | 'password' | 'lockout';

/** A refused save: which form, its message, and what was posted (shown again). */
interface Refusal {
  section: Section;
  error: string | undefined;
  posted: Record<string, unknown>;
}

const LOGIN_FLAGS = ['allowUsernamePassword', 'allowRegister', 'allowExternalIdp', 'forceMfa'] as const;
const PASSWORD_FLAGS = ['hasUppercase', 'hasLowercase', 'hasNumber', 'hasSymbol'] as const;

interface Policies {
  login: LoginPolicy | undefined;
  password: PasswordComplexityPolicy | undefined;
  lockout: LockoutPolicy | undefined;
}

/** The policies in force, through the operations the viewer may call: the admin's, else the org owner's reads. */
async function readPolicies(page: ConsolePage): Promise<Policies> {
  const admin = page.viewer.isIamOwner;
  const [login, password, lockout] = await Promise.all([
    admin ? page.run(A.method.getLoginPolicy, {}) : page.run(M.method.getLoginPolicy, {}),
    admin ? page.run(A.method.getPasswordComplexityPolicy, {}) : page.run(M.method.getPasswordComplexityPolicy, {}),
    admin ? page.run(A.method.getLockoutPolicy, {}) : page.run(M.method.getLockoutPolicy, {}),
  ]);
  return { login: login.policy, password: password.policy, lockout: lockout.policy };
}

/** One policy's form: a POST form with its message for an administrator, a disabled fieldset for anyone else. */
function PolicyForm(p: {
  page: ConsolePage;
  section: Section;
  title: string | undefined;
  flash: { notice?: string | undefined; error?: string | undefined };
  children: Markup;
  /** Read-only facts shown under the form. */
  after?: Markup;
}) {
  const { page } = p;
  const id = `${p.section}-policy`;
  const fields = html`<fieldset disabled=${!page.viewer.isIamOwner}>
    <legend class="visually-hidden">${p.title}</legend>
    ${p.children}
  </fieldset>`;
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${p.title}</h2>
    ${
      page.viewer.isIamOwner
        ? html`<${Flash} notice=${p.flash.notice} error=${p.flash.error} />
          <${PostForm} action=${url(page, `/policies/${p.section}`)} csrf=${page.csrf}>
            ${fields}
            <${Submit} label=${page.t.save} />
          <//>`
        : fields
    }
    ${p.after}
  </section>`;
}

const SECOND_FACTORS: Record<number, string> = {
  [SecondFactorType.OTP]: 'factorOtp',
  [SecondFactorType.U2F]: 'factorU2f',
};
const MULTI_FACTORS: Record<number, string> = { [MultiFactorType.U2F_WITH_VERIFICATION]: 'factorPasskey' };

async function showPolicies(page: ConsolePage, refusal?: Refusal) {
  const { t } = page;
  const current = await readPolicies(page);
  const saved = (page.request.query as { saved?: string }).saved;
  const flash = (section: Section) => ({
    notice: saved === section ? t.saved : undefined,
    error: refusal?.section === section ? refusal.error : undefined,
  });
  // a refused form shows what was posted; the others what is in force
  const value = (section: Section, name: string, inForce: unknown) =>
    refusal?.section === section ? refusal.posted[name] : inForce;
  const flag = (section: Section, name: string, inForce: boolean | undefined) =>
    html`<${Checkbox} name=${name} label=${t[name]} checked=${Boolean(value(section, name, inForce))} />`;
  const { login, password, lockout } = current;
  const lifetime = login?.passwordCheckLifetime?.seconds ?? 0n;
  const factorNames = (list: number[], names: Record<number, string>) =>
    list.map((f) => t[names[f] ?? ''] ?? String(f)).join(', ') || t.none;
  // what the login policy reports but settings decide (management/handlers/login-policy.ts)
  const loginFacts = html`<dl class="settings">
    <dt>${t.secondFactors}</dt>
    <dd>${factorNames(login?.secondFactors ?? [], SECOND_FACTORS)}</dd>
    <dt>${t.multiFactors}</dt>
    <dd>${factorNames(login?.multiFactors ?? [], MULTI_FACTORS)}</dd>
    <dt>${t.checkLifetimes}</dt>
    <dd>${format(t.checkLifetimesValue!, { seconds: String(lifetime) })}</dd>
  </dl>`;
  const body = html`${!page.viewer.isIamOwner && html`<p class="lead">${t.policiesInstanceOnly}</p>`}
    <${PolicyForm}
      page=${page}
      section="login"
      title=${t.loginPolicyTitle}
      flash=${flash('login')}
      after=${loginFacts}
    >
      ${LOGIN_FLAGS.map((name) => flag('login', name, login?.[name]))}
      ${flag('login', 'passwordless', login?.passwordlessType === PasswordlessType.ALLOWED)}
    <//>
    <${PolicyForm} page=${page} section="password" title=${t.passwordPolicyTitle} flash=${flash('password')}>
      <${Input}
        name="minLength"
        type="number"
        label=${t.minLength}
        value=${String(value('password', 'minLength', password?.minLength ?? ''))}
        required=${true}
        min=${8}
        max=${1024}
      />
      ${PASSWORD_FLAGS.map((name) => flag('password', name, password?.[name]))}
    <//>
    <${PolicyForm} page=${page} section="lockout" title=${t.lockoutPolicyTitle} flash=${flash('lockout')}>
      <${Input}
        name="maxPasswordAttempts"
        type="number"
        label=${t.maxPasswordAttempts}
        value=${String(value('lockout', 'maxPasswordAttempts', lockout?.maxPasswordAttempts ?? ''))}
        required=${true}
        min=${1}
        max=${1000}
        help=${format(t.maxPasswordAttemptsHelp!, { seconds: page.deps.web.config.lockout.seconds })}
      />
      <${Input}
        name="maxOtpAttempts"
        type="number"
        label=${t.maxOtpAttempts}
        value=${String(value('lockout', 'maxOtpAttempts', lockout?.maxOtpAttempts ?? ''))}
        required=${true}
        min=${1}
        max=${1000}
        help=${format(t.maxOtpAttemptsHelp!, { seconds: page.deps.web.config.lockout.seconds })}
      />
    <//>`;
  return page.render('policies', t.policiesTitle!, body, refusal ? 400 : 200);
}

/** A posted whole number; anything else is refused like the API refuses a bad value, naming the field. */
function count(page: ConsolePage, name: string, field: string): number {
  const posted = page.field(name);
  if (!/^\d{1,9}$/.test(posted)) throw invalidArgument(`invalid ${field}: value must be a whole number`);
  return Number(posted);
}

/** A save of one policy's form: the operation, then the page with a notice (303), or the refusal (400). */
function save(section: Section, fields: readonly string[], apply: (page: ConsolePage) => Promise<unknown>) {
  return async (page: ConsolePage) => {
    try {
      await apply(page);
    } catch (error) {
      const posted: Record<string, unknown> = Object.fromEntries(fields.map((f) => [f, page.field(f)]));
      for (const f of [...LOGIN_FLAGS, ...PASSWORD_FLAGS, 'passwordless'])
        if (f in posted) posted[f] = posted[f] === 'on';
      return showPolicies(page, { section, error: inputError(error), posted });
    }
    return page.reply.redirect(url(page, `/policies?saved=${section}`), 303);
  };
}

export function registerPolicies(router: ConsoleRouter): void {
  router.get('/policies', (page) => showPolicies(page));
  router.post(
    '/policies/login',
    save('login', [...LOGIN_FLAGS, 'passwordless'], (page) =>
      page.run(A.method.updateLoginPolicy, {
        ...Object.fromEntries(LOGIN_FLAGS.map((name) => [name, page.field(name) === 'on'])),
        passwordlessType: page.field('passwordless') === 'on' ? PasswordlessType.ALLOWED : PasswordlessType.NOT_ALLOWED,
      }),
    ),
  );
  router.post(
    '/policies/password',
    save('password', ['minLength', ...PASSWORD_FLAGS], (page) =>
      page.run(A.method.updatePasswordComplexityPolicy, {
        minLength: count(page, 'minLength', 'UpdatePasswordComplexityPolicyRequest.MinLength'),
        ...Object.fromEntries(PASSWORD_FLAGS.map((name) => [name, page.field(name) === 'on'])),
      }),
    ),
  );
  router.post(
    '/policies/lockout',
    save('lockout', ['maxPasswordAttempts', 'maxOtpAttempts'], (page) =>
      page.run(A.method.updateLockoutPolicy, {
        maxPasswordAttempts: count(page, 'maxPasswordAttempts', 'UpdateLockoutPolicyRequest.MaxPasswordAttempts'),
        // left out (a form from before the field, or a post of one field only): as many as maxPasswordAttempts, the
        // API's 0, so that such a post meets the API's permission check before any check of the form's values
        maxOtpAttempts: page.field('maxOtpAttempts')
          ? count(page, 'maxOtpAttempts', 'UpdateLockoutPolicyRequest.MaxOtpAttempts')
          : 0,
      }),
    ),
  );
}
