// Console area "Users": the actions of a user's page, each a POST form (CSRF checked by the router) that
// runs the API's operation: LockUser / UnlockUser / DeactivateUser / ReactivateUser, SetHumanPassword (a refused
// password is the password form's message), RemoveUser, RemoveMachineKey and RemovePersonalAccessToken (each after a
// confirmation that works without JavaScript: page.ts's removal), AddPersonalAccessToken (the user's page with the
// token, shown this once). After an action the user's page again, with a notice (303).
import { ManagementService as M } from '@zitadel/proto/zitadel/management_pb.js';
import { formField } from '../web/forms.ts';
import { invalidArgument } from '../platform/errors.ts';
import { type ConsolePage, type ConsoleRouter, inputError } from './page.ts';
import { removal } from './actions.ts';
import { STATE_ACTIONS, showUser, type StateAction, userIdOf, userPath } from './user-detail.ts';
import { addPat } from './user-pats.ts';

function changeState(page: ConsolePage, id: string, action: StateAction) {
  switch (action) {
    case 'lock':
      return page.run(M.method.lockUser, { id });
    case 'unlock':
      return page.run(M.method.unlockUser, { id });
    case 'deactivate':
      return page.run(M.method.deactivateUser, { id });
    case 'reactivate':
      return page.run(M.method.reactivateUser, { id });
  }
}

/** Runs an action; a refusal is the user's page with the API's message (400), success the page with `?done=`. */
const act =
  (apply: (page: ConsolePage, id: string) => Promise<string>, form?: 'password') => async (page: ConsolePage) => {
    const id = userIdOf(page);
    let done: string;
    try {
      done = await apply(page, id);
    } catch (error) {
      return showUser(page, { error: inputError(error, page.t), status: 400, form });
    }
    return page.reply.redirect(page.href(userPath(id, `?done=${done}`)), 303);
  };

const userName = async (page: ConsolePage) =>
  (await page.run(M.method.getUserByID, { id: userIdOf(page) })).user?.userName ?? '';

export function registerUserActions(router: ConsoleRouter): void {
  router.post(
    '/users/:id/state',
    act(async (page, id) => {
      const action = page.field('action');
      if (!Object.hasOwn(STATE_ACTIONS, action)) throw invalidArgument(`invalid action: ${action || 'none given'}`);
      await changeState(page, id, action as StateAction);
      return action;
    }),
  );
  router.post(
    '/users/:id/password',
    act(async (page, userId) => {
      // the password as typed (page.field trims): spaces may be part of it
      const password = formField(page.request, 'password') ?? '';
      const noChangeRequired = page.field('changeRequired') !== 'on';
      await page.run(M.method.setHumanPassword, { userId, password, noChangeRequired });
      return 'password';
    }, 'password'),
  );
  const removeUser = removal(
    userName,
    (page) => page.run(M.method.removeUser, { id: userIdOf(page) }),
    (page) => page.href(userPath(userIdOf(page))),
    (page) => page.href('/ui/console/users'),
  );
  // RemoveUser can refuse (the last IAM_OWNER): the user's page with the API's message, not an error page
  router.post('/users/:id/remove', async (page) => {
    try {
      return await removeUser(page);
    } catch (error) {
      return showUser(page, { error: inputError(error, page.t), status: 400 });
    }
  });
  // the answer itself shows the new token (no redirect: it must never be in a URL)
  router.post('/users/:id/pats', async (page) => {
    try {
      return await showUser(page, { pat: await addPat(page, userIdOf(page)) });
    } catch (error) {
      return showUser(page, { error: inputError(error, page.t), status: 400 });
    }
  });
  const tokenIdOf = (page: ConsolePage) => (page.request.params as { tokenId: string }).tokenId;
  router.post(
    '/users/:id/pats/:tokenId/remove',
    removal(
      async (page) => tokenIdOf(page),
      (page) => page.run(M.method.removePersonalAccessToken, { userId: userIdOf(page), tokenId: tokenIdOf(page) }),
      (page) => page.href(userPath(userIdOf(page))),
      (page) => page.href(userPath(userIdOf(page), '?done=pat')),
    ),
  );
  router.post(
    '/users/:id/keys/:keyId/remove',
    removal(
      async (page) => (page.request.params as { keyId: string }).keyId,
      (page) =>
        page.run(M.method.removeMachineKey, {
          userId: userIdOf(page),
          keyId: (page.request.params as { keyId: string }).keyId,
        }),
      (page) => page.href(userPath(userIdOf(page))),
      (page) => page.href(userPath(userIdOf(page), '?done=key')),
    ),
  );
}
