// The pages oidc-provider renders itself, in the login pages' look and languages: the end_session
// confirmation (rpInitiatedLogout.logoutSource), the logged-out page (postLogoutSuccessSource) and the error page
// of the authorization and end_session endpoints (renderError), which shows the error code but never a stack.
// src/oidc/ passes these functions into the provider configuration; app.ts hands them over (src/oidc/pages.ts).
import { randomBytes } from 'node:crypto';
import type { PageContext, ProviderPages } from '../oidc/pages.ts';
import { describeAccounts } from '../users/accounts.ts';
import { format, SUPPORTED_LOCALES, type Texts } from '../views/i18n.ts';
import { chooseLocale } from '../web/locale.ts';
import type { PageAppDeps } from '../web/page-deps.ts';
import { KNOWN_ACCOUNTS_COOKIE, readKnownAccounts } from './known-accounts.ts';
import { loadPages } from '../web/pages.ts';
import { sameOriginPostsOnly } from '../web/error-page.ts';
import { ErrorPage, LoggedOutPage, LogoutPage } from '../views/messages.ts';

const localeOf = (ctx: PageContext) =>
  chooseLocale(ctx.oidc?.params?.ui_locales ?? ctx.query?.ui_locales, ctx.get('accept-language'));

export function providerPages(deps: Pick<PageAppDeps, 'config' | 'db' | 'instance' | 'secrets'>): ProviderPages {
  return {
    sameOriginPostsOnly: sameOriginPostsOnly(deps),
    locales: SUPPORTED_LOCALES,
    knownAccounts: (cookies) => readKnownAccounts(deps.secrets, cookies.get(KNOWN_ACCOUNTS_COOKIE)).length,

    async logoutSource(ctx) {
      const pages = await loadPages(deps);
      const locale = localeOf(ctx);
      const accountId = ctx.oidc?.session?.accountId;
      const [account] = accountId ? await describeAccounts(deps.db, [accountId]) : [];
      // The page submits itself only when the id_token_hint (validated by oidc-provider: signature and client) names
      // this session's account: the application identified the session. Without a hint, or with a valid hint of
      // another user (a logout CSRF), the user confirms (RP-Initiated Logout 1.0 §2).
      const hintSub = ctx.oidc?.entities?.IdTokenHint?.payload?.sub;
      const autoSubmit =
        accountId !== undefined && hintSub === accountId ? randomBytes(16).toString('base64url') : undefined;
      pages.sendKoa(
        ctx,
        pages.render(
          200,
          locale,
          LogoutPage,
          'logoutTitle',
          {
            // The provider's own confirmation form target and its session-bound xsrf value (actions/end_session.js).
            // views/messages.ts sends logout=yes in one hidden field, for a click and for the script alike; a named
            // button would add it a second time, which the provider refuses as a duplicate.
            action: ctx.oidc!.urlFor('end_session_confirm'),
            xsrf: ctx.oidc?.session?.state?.secret as string | undefined,
            account: account && { ...account, initial: [...account.displayName][0]?.toUpperCase() },
          },
          autoSubmit,
        ),
      );
    },

    async postLogoutSuccessSource(ctx) {
      const pages = await loadPages(deps);
      pages.sendKoa(ctx, pages.render(200, localeOf(ctx), LoggedOutPage, 'loggedOutTitle', {}));
    },

    async renderError(ctx, out) {
      const pages = await loadPages(deps);
      const locale = localeOf(ctx);
      const t = pages.texts(locale);
      const code = typeof out.error === 'string' ? out.error : 'server_error';
      const status = Math.max(ctx.status, 400);
      pages.sendKoa(
        ctx,
        pages.render(status, locale, ErrorPage, 'errorTitle', {
          title: t.errorTitle,
          message: explain(t, code, String(out.error_description ?? '')),
          code,
        }),
      );
    },

    async refusal(request, reply, error) {
      const pages = await loadPages(deps);
      const locale = chooseLocale(undefined, request.headers['accept-language']);
      const t = pages.texts(locale);
      const message = error.retryAfterSeconds
        ? format(t.errorTooManyRequests!, { seconds: error.retryAfterSeconds })
        : explain(t, error.error, error.message);
      return pages.send(
        reply,
        pages.render(error.status ?? 400, locale, ErrorPage, 'errorTitle', {
          title: t.errorTitle,
          message,
          code: error.error,
        }),
      );
    },
  };
}

function explain(t: Texts, code: string, description: string): string {
  if (code === 'invalid_redirect_uri' || (/redirect_uri/.test(description) && !/post_logout/.test(description)))
    return t.errorRedirect!;
  if (/post_logout_redirect_uri|id_token_hint/.test(description)) return t.errorPostLogoutRedirect!;
  if (code === 'invalid_client') return t.errorClient!;
  if (/interaction session|session not found|could not find logout details/i.test(description)) return t.errorExpired!;
  return t.errorGeneric!;
}
