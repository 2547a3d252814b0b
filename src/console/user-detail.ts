// Console area "Users": one user's page. Its profile and state, the actions its state allows
// (user-actions.ts runs them), its grants, its memberships, and per kind: a human's sign-in sessions, second factors
// and passkeys, a machine's keys and personal access tokens (user-pats.ts). Every read is the API's operation
// (GetUserByID, ListUserGrants, ListUserMemberships, ListHumanAuthFactors, ListHumanPasswordless, ListMachineKeys,
// ListPersonalAccessTokens), but the sessions: ZITADEL's v1 API lists none per user (only the user's own
// AuthService), so they are the management's read behind the org owner's check (page.read, as the overview's app
// count), after GetUserByID, and only for a user of that org; so is the lock of the lockout policy (too many failed
// sign-ins), shown as the user's state with Unlock. A user of another org is the "not found" page, as in the API.
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import {
  AccessTokenType,
  AuthFactorState,
  UserGrantState,
  UserState,
  type AuthFactor,
  type Membership,
  type User,
} from '@zitadel/proto/zitadel/user_pb.js';
import type { Texts } from '../views/i18n.ts';
import type { SessionApp, UserSession } from '../users/artifact-queries.ts';
import type { AccountLock } from '../lockout/queries.ts';
import { html, type Markup } from '../views/html.ts';
import { Checkbox, Flash, Input, PostForm, StateBadge, Submit, Table, utcText } from '../views/console/components.ts';
import type { ConsolePage, ConsoleRouter } from './page.ts';
import { PatSection, type AddedPat } from './user-pats.ts';

/** A user's console path (to pass through `page.href`, which keeps the org in context). */
export const userPath = (userId: string, rest = '') => `/ui/console/users/${encodeURIComponent(userId)}${rest}`;
export const userIdOf = (page: ConsolePage) => (page.request.params as { id: string }).id;

/** The state changes of LockUser, UnlockUser, DeactivateUser and ReactivateUser, and the states each is valid in
 *  (users/state.ts's transitions), so a page offers only what the API would accept. */
export const STATE_ACTIONS = {
  lock: { from: [UserState.ACTIVE], label: 'lock' },
  unlock: { from: [UserState.LOCKED], label: 'unlock' },
  deactivate: { from: [UserState.ACTIVE, UserState.LOCKED], label: 'deactivate' },
  reactivate: { from: [UserState.INACTIVE], label: 'reactivate' },
} as const;
export type StateAction = keyof typeof STATE_ACTIONS;

/** A user's state as a person sees it: an active user under a running sign-in lockout (lockout/) is locked, as
 *  ZITADEL shows a user its lockout policy locked, and UnlockUser lifts it. */
const shownState = (user: { state: UserState }, lock: AccountLock | undefined) =>
  lock && user.state === UserState.ACTIVE ? UserState.LOCKED : user.state;

/** The lockout's words: how many failed attempts (none counted: a second factor's lock) and until when. */
export function lockText(t: Texts, lock: AccountLock, short = false): string {
  const until = minute(lock.lockedUntil);
  if (short) return t.lockedAttemptsShort!.replace('{failures}', String(lock.failures));
  const text = lock.failures > 0 ? t.lockedByAttempts! : t.lockedBySignIns!;
  return text.replace('{failures}', String(lock.failures)).replace('{until}', until);
}

export const UserStateBadge = ({ t, state, lock }: { t: Texts; state: UserState; lock?: AccountLock | undefined }) =>
  lock && state === UserState.ACTIVE
    ? html`<span class="badge warn">${lockText(t, lock, true)}</span>`
    : state === UserState.LOCKED
      ? html`<span class="badge">${t.locked}</span>`
      : html`<${StateBadge} t=${t} active=${state === UserState.ACTIVE} />`;

/** What the page shows above its sections, or above the password form (`form: 'password'`). */
export interface UserFlash {
  notice?: string | undefined;
  error?: string | undefined;
  status?: number;
  form?: 'password';
  /** A personal access token just added: shown in this answer only. */
  pat?: AddedPat;
}

const minute = (at: Date | Timestamp | undefined) => (at ? `${utcText(at, 16)} UTC` : '');

function Profile({ t, user, lock }: { t: Texts; user: User; lock: AccountLock | undefined }) {
  const row = (label: string | undefined, value: Markup) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const human = user.type.case === 'human' ? user.type.value : undefined;
  const machine = user.type.case === 'machine' ? user.type.value : undefined;
  const checked = (verified: boolean) => html` <span class="badge">${verified ? t.verified : t.notVerified}</span>`;
  return html`<section aria-labelledby="profile">
    <h2 id="profile">${t.profileTitle}</h2>
    <dl class="profile">
      ${row(t.userName, user.userName)} ${row(t.loginName, user.preferredLoginName)}
      ${row(
        t.state,
        lock && user.state === UserState.ACTIVE
          ? html`<span class="badge warn">${t.locked}</span> ${lockText(t, lock)}`
          : html`<${UserStateBadge} t=${t} state=${user.state} />`,
      )}
      ${
        human &&
        html`${row(t.firstName, human.profile?.firstName ?? '')} ${row(t.lastName, human.profile?.lastName ?? '')}
      ${row(t.displayName, human.profile?.displayName ?? '')}
      ${row(t.email, html`${human.email?.email}${checked(human.email?.isEmailVerified ?? false)}`)}
      ${human.phone?.phone && row(t.phone, html`${human.phone.phone}${checked(human.phone.isPhoneVerified)}`)}
      ${row(t.preferredLanguage, human.profile?.preferredLanguage || '–')}`
      }
      ${
        machine &&
        html`${row(t.name, machine.name)} ${row(t.description, machine.description || '–')}
      ${row(t.accessTokenType, machine.accessTokenType === AccessTokenType.JWT ? 'JWT' : 'Bearer')}`
      }
    </dl>
  </section>`;
}

function Actions(p: { page: ConsolePage; user: User; lock: AccountLock | undefined; flash: UserFlash }) {
  const { page, user, flash } = p;
  const { t } = page;
  const act = (rest: string) => page.href(userPath(user.id, rest));
  const state = shownState(user, p.lock);
  const actions = (Object.keys(STATE_ACTIONS) as StateAction[]).filter((a) =>
    (STATE_ACTIONS[a].from as readonly UserState[]).includes(state),
  );
  return html`<section aria-labelledby="user-actions">
      <h2 id="user-actions">${t.actions}</h2>
      <div class="actions">
        ${actions.map(
          (a) => html`<${PostForm} action=${act('/state')} csrf=${page.csrf} class="inline">
            <input type="hidden" name="action" value=${a} />
            <${Submit} label=${t[STATE_ACTIONS[a].label]} kind="secondary" />
          <//>`,
        )}
        <${PostForm} action=${act('/remove')} csrf=${page.csrf} class="inline" confirm=${t.confirmLead}>
          <${Submit} label=${t.remove} kind="secondary" />
        <//>
      </div>
      ${p.lock && html`<p class="help">${t.unlockHelp}</p>`}
    </section>
    ${
      user.type.case === 'human' &&
      html`<section aria-labelledby="set-password">
      <h2 id="set-password">${t.password}</h2>
      ${flash.form === 'password' && html`<${Flash} error=${flash.error} />`}
      <${PostForm} action=${act('/password')} csrf=${page.csrf}>
        <${Input}
          name="password"
          idPrefix="new-"
          type="password"
          label=${t.newPassword}
          required=${true}
          maxLength=${1024}
          autocomplete="new-password"
        />
        <${Checkbox} name="changeRequired" label=${t.changeRequired} checked=${false} />
        <${Submit} label=${t.setPassword} kind="secondary" />
      <//>
    </section>`
    }`;
}

const membershipKind = (t: Texts, m: Membership) =>
  m.type.case === 'iam' ? t.instance : m.type.case === 'orgId' ? t.org : t.project;

function factorRows(t: Texts, factors: AuthFactor[], passkeys: { name: string; state: AuthFactorState }[]) {
  const ready = (state: AuthFactorState) => (state === AuthFactorState.READY ? t.factorReady : t.factorNotReady);
  return [
    ...factors.map((f) => [
      f.type.case === 'otp' ? t.factorOtp : t.factorU2f,
      f.type.case === 'u2f' ? f.type.value.name : '',
      ready(f.state),
    ]),
    ...passkeys.map((p) => [t.factorPasskey, p.name, ready(p.state)]),
  ];
}

/** An app a session signed in to: an app of the org by its name, linked to its page, and its project, with the
 *  client id below; any other client (the console, the account page, another org's app) by its client id. */
function SessionAppName({ page, app }: { page: ConsolePage; app: SessionApp }) {
  if (!app.app) return html`<span class="session-app"><code>${app.clientId}</code></span>`;
  const { id, name, projectId, projectName } = app.app;
  const path = `/ui/console/projects/${encodeURIComponent(projectId)}`;
  const appHref = page.href(`${path}/apps/${encodeURIComponent(id)}`);
  return html`<span class="session-app"
    ><a href=${appHref}>${name}</a> · <a href=${page.href(path)}>${projectName}</a
    ><small><code>${app.clientId}</code></small></span
  >`;
}

/** The sessions' table: when, until when, which apps, how (amr); never a session's id, which would sign its
 *  reader in. */
function Sessions({ page, sessions }: { page: ConsolePage; sessions: UserSession[] }) {
  const { t } = page;
  const when = (date: Date | null) => (date ? minute(date) : '–');
  return html`<section aria-labelledby="sessions">
    <h2 id="sessions">${t.sessionsTitle}</h2>
    <${Table}
      t=${t}
      caption=${t.sessionsTitle}
      head=${[t.signedIn, t.expires, t.sessionApps, t.signInMethods]}
      rows=${sessions.map((s) => [
        when(s.signedInAt),
        when(s.expiresAt),
        s.apps.map((a) => html`<${SessionAppName} page=${page} app=${a} />`),
        s.amr.join(', ') || '–',
      ])}
    />
  </section>`;
}

export async function showUser(page: ConsolePage, flash: UserFlash = {}) {
  const { t } = page;
  const id = userIdOf(page);
  const { user } = await page.run(M.method.getUserByID, { id });
  if (!user) throw new Error('GetUserByID answered without a user');
  const human = user.type.case === 'human';
  const [grants, memberships, sessions, factors, passkeys, keys, pats, locks] = await Promise.all([
    page.run(M.method.listUserGrants, {
      query: { limit: 100 },
      queries: [{ query: { case: 'userIdQuery', value: { userId: id } } }],
    }),
    page.run(M.method.listUserMemberships, { userId: id, query: { limit: 100 } }),
    human ? page.read(page.deps.reads.userSessions, { userId: id }) : undefined,
    human ? page.run(M.method.listHumanAuthFactors, { userId: id }) : undefined,
    human ? page.run(M.method.listHumanPasswordless, { userId: id }) : undefined,
    human ? undefined : page.run(M.method.listMachineKeys, { userId: id, query: { limit: 100 } }),
    human ? undefined : page.run(M.method.listPersonalAccessTokens, { userId: id, query: { limit: 100 } }),
    page.read(page.deps.reads.userLocks, { userIds: [id] }),
  ]);
  const lock = locks[0];
  const body = html`${flash.form !== 'password' && html`<${Flash} notice=${flash.notice} error=${flash.error} />`}
    <${Profile} t=${t} user=${user} lock=${lock} />
    <${Actions} page=${page} user=${user} lock=${lock} flash=${flash} />
    <section aria-labelledby="user-grants">
      <h2 id="user-grants">${t.userGrantsTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.userGrantsTitle}
        head=${[t.project, t.roles, t.state]}
        rows=${grants.result.map((g) => [
          g.projectName,
          g.roleKeys.join(', '),
          html`<${StateBadge} t=${t} active=${g.state === UserGrantState.ACTIVE} />`,
        ])}
      />
    </section>
    <section aria-labelledby="memberships">
      <h2 id="memberships">${t.membershipsTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.membershipsTitle}
        head=${[t.kind, t.name, t.roles]}
        rows=${memberships.result.map((m) => [membershipKind(t, m), m.displayName, m.roles.join(', ')])}
      />
    </section>
    ${sessions && html`<${Sessions} page=${page} sessions=${sessions} />`}
    ${
      factors &&
      html`<section aria-labelledby="factors">
      <h2 id="factors">${t.factorsTitle}</h2>
      <p class="help">${t.factorsHelp}</p>
      <${Table}
        t=${t}
        caption=${t.factorsTitle}
        head=${[t.kind, t.name, t.state]}
        rows=${factorRows(t, factors.result, passkeys?.result ?? [])}
      />
    </section>`
    }
    ${
      keys &&
      html`<section aria-labelledby="keys">
      <h2 id="keys">${t.keysTitle}</h2>
      <${Table}
        t=${t}
        caption=${t.keysTitle}
        head=${[t.keyId, t.expires, t.actions]}
        rows=${keys.result.map((k) => [
          html`<code>${k.id}</code>`,
          minute(k.expirationDate),
          html`<${PostForm}
            action=${page.href(userPath(id, `/keys/${encodeURIComponent(k.id)}/remove`))}
            csrf=${page.csrf}
            confirm=${t.confirmLead}
          >
            <${Submit} label=${t.remove} kind="secondary" />
          <//>`,
        ])}
      />
    </section>`
    }
    ${pats && html`<${PatSection} page=${page} userId=${id} pats=${pats.result} added=${flash.pat} />`}`;
  return page.render('users', user.userName, body, flash.status);
}

/** The notices of the actions (user-actions.ts redirects to `?done=<action>`). */
const NOTICES = new Map([
  ['lock', 'noticeLocked'],
  ['unlock', 'noticeUnlocked'],
  ['deactivate', 'noticeDeactivated'],
  ['reactivate', 'noticeReactivated'],
  ['password', 'noticePasswordSet'],
  ['key', 'noticeKeyRemoved'],
  ['pat', 'noticePatRemoved'],
]);

export function registerUserDetail(router: ConsoleRouter): void {
  router.get('/users/:id', (page) => {
    const done = (page.request.query as { done?: unknown }).done;
    const key = typeof done === 'string' ? NOTICES.get(done) : undefined;
    return showUser(page, { notice: key ? page.t[key] : undefined });
  });
}
