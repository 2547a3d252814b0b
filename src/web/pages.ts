// Rendering of the pages in the layout of the login and account pages, for Fastify replies (our routes) and for
// oidc-provider's Koa context (logout, logged-out and error pages): language, security headers and the instance
// name on every page.
import type { FastifyReply } from 'fastify';
import type { Db } from '../platform/db.ts';
import type { InstanceRow } from '../instance/queries.ts';
import { findOrgById } from '../orgs/queries.ts';
import { HTML_SECURITY_HEADERS, SCRIPT_PAGE_CSP } from './security.ts';
import { textsFor, type Locale, type Texts } from '../views/i18n.ts';
import { renderDocument } from '../views/html.ts';
import { Layout, type View } from '../views/layout.ts';

export interface RenderedPage {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The subset of a Koa context the provider's page hooks write to. */
export interface KoaLike {
  status: number;
  body: unknown;
  type: string;
  set(name: string, value: string): void;
}

export class Pages {
  readonly #instanceName: string;

  constructor(instanceName: string) {
    this.#instanceName = instanceName;
  }

  /** The instance's name, as every page's title shows it. */
  get instanceName(): string {
    return this.#instanceName;
  }

  texts(locale: Locale): Texts {
    return textsFor(locale);
  }

  /** A page: the view with its props in the layout; `scriptNonce` allows the one inline script that carries it
   *  (the pages need none otherwise). */
  render<P>(
    status: number,
    locale: Locale,
    view: View<P>,
    titleKey: string,
    props: P,
    scriptNonce?: string,
  ): RenderedPage {
    const t = textsFor(locale);
    const body = renderDocument(
      Layout({
        t,
        instanceName: this.#instanceName,
        pageTitle: t[titleKey] ?? titleKey,
        children: view({ ...props, t, scriptNonce }),
      }),
    );
    const headers: Record<string, string> = {
      ...HTML_SECURITY_HEADERS,
      'content-language': locale,
      'content-type': 'text/html; charset=utf-8',
    };
    if (scriptNonce)
      headers['content-security-policy'] = `${headers['content-security-policy']}; script-src 'nonce-${scriptNonce}'`;
    return { status, body, headers };
  }

  /** A page that loads the passkey script: the only pages whose CSP allows `script-src 'self'`. */
  renderWithScript<P>(status: number, locale: Locale, view: View<P>, titleKey: string, props: P): RenderedPage {
    const page = this.render(status, locale, view, titleKey, props);
    return { ...page, headers: { ...page.headers, 'content-security-policy': SCRIPT_PAGE_CSP } };
  }

  send(reply: FastifyReply, page: RenderedPage): FastifyReply {
    return reply.code(page.status).headers(page.headers).send(page.body);
  }

  sendKoa(ctx: KoaLike, page: RenderedPage): void {
    for (const [name, value] of Object.entries(page.headers)) ctx.set(name, value);
    ctx.status = page.status;
    ctx.type = 'html';
    ctx.body = page.body;
  }
}

export const VIEWS_DIR = new URL('../../views/', import.meta.url);

const loaded = new WeakMap<object, Promise<Pages>>();

/** What the pages are built from. */
export interface PagesDeps {
  db: Db;
  instance: InstanceRow;
}

/** The pages of this instance, titled with the name of its first organization; built once per instance row. */
export function loadPages(deps: PagesDeps): Promise<Pages> {
  let pages = loaded.get(deps.instance);
  if (!pages) {
    pages = findOrgById(deps.db, deps.instance.default_org_id).then((org) => new Pages(org?.name ?? 'Gatehouse'));
    loaded.set(deps.instance, pages);
  }
  return pages;
}
