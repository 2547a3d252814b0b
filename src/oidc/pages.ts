// The provider's own pages: protocol errors shown on the server (interface.md: when redirect_uri is missing or
// unregistered the error is displayed to the user) and the end_session confirmation. Plain on purpose: the login
// pages issue gives them the full look.
import { randomBytes } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';

const escapeHtml = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(ctx: KoaContextWithOIDC, title: string, body: string, scriptNonce?: string): void {
  ctx.type = 'html';
  const script = scriptNonce ? ` script-src 'nonce-${scriptNonce}';` : '';
  // no form-action: Chromium applies it to the redirects after a submit, which end at the app's registered URI
  ctx.set('content-security-policy', `default-src 'none';${script} style-src 'self'; frame-ancestors 'none'`);
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('x-content-type-options', 'nosniff');
  ctx.body = `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>\n<body><main>${body}</main></body></html>\n`;
}

export async function renderErrorPage(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> {
  // Only the protocol error and its description: never a stack or internal detail.
  page(ctx, 'Error', `<h1>Something went wrong</h1><p id="error">${escapeHtml(out.error)}</p><p id="error_description">${escapeHtml(out.error_description ?? '')}</p>`);
}

export async function renderLogoutPage(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  if (ctx.oidc.params?.id_token_hint) {
    // oidc-provider has validated the hint (signature, client): the RP identified the session, no question asked.
    const nonce = randomBytes(16).toString('base64url');
    const auto = form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>');
    page(ctx, 'Signing out', `${auto}<noscript><button type="submit" form="op.logoutForm">Continue</button></noscript><script nonce="${nonce}">document.forms[0].submit()</script>`, nonce);
    return;
  }
  // Without a valid hint the user confirms; oidc-provider's form carries the xsrf token (compat.md §6).
  page(ctx, 'Sign out', `<h1>Do you want to sign out?</h1>${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`);
}

export async function renderLoggedOutPage(ctx: KoaContextWithOIDC): Promise<void> {
  page(ctx, 'Signed out', '<h1>You are signed out</h1>');
}
