// The scope every page family (login, account, console) registers its routes in, apart from the provider's raw
// routes: cookies, a form body parser, the NUL check of every field, the static assets, the write of a step's
// held saves before its answer leaves, and the error page.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { fieldWithNul } from '../platform/text.ts';
import { writeDeferred } from '../platform/request-scope.ts';
import { answerPageError } from './error-page.ts';
import { InvalidCharacter } from './forms.ts';
import type { InteractionProvider, PageAppDeps, PageDeps } from './page-deps.ts';
import { loadPages, VIEWS_DIR } from './pages.ts';

/** A page family: its routes, registered in the pages' scope with what every page is built with. */
export type PageFamily = (ui: FastifyInstance, deps: PageDeps) => void;

const STATIC: Record<string, { type: string; body: Buffer }> = {
  'style.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('static/style.css', VIEWS_DIR)) },
  'logo.svg': { type: 'image/svg+xml', body: readFileSync(new URL('static/logo.svg', VIEWS_DIR)) },
  // the admin console's: its layout, and the one optional script (copy buttons, confirmations)
  'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('static/console.css', VIEWS_DIR)) },
  'console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('static/console.js', VIEWS_DIR)) },
  // loaded by the passkey pages only
  'passkey.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('static/passkey.js', VIEWS_DIR)) },
};

export async function registerPages(
  app: FastifyInstance,
  deps: PageAppDeps,
  oidc: InteractionProvider,
  families: PageFamily[],
): Promise<void> {
  const pages = await loadPages(deps);
  const page: PageDeps = {
    config: deps.config,
    db: deps.db,
    secrets: deps.secrets,
    instance: deps.instance,
    metrics: deps.metrics,
    oidc,
    pages,
    hashing: deps.hashing,
    mailer: deps.mailer,
  };

  await app.register(async (ui) => {
    await ui.register(cookie);
    // Forms are small; anything bigger is refused before parsing (SECURITY.md "Limits on every encoding").
    await ui.register(formbody, { bodyLimit: 16 * 1024 });
    // A step's saves (the interaction, the lockout's settlement) are written as one statement before its answer
    // leaves: the next step, maybe on another node, reads them (oidc/write-behind.ts).
    ui.addHook('onSend', async () => writeDeferred());

    // Every field of every form, and the path and query, in one check (SECURITY.md "NUL characters"): a 400 page
    // naming the field.
    ui.addHook('preValidation', async (request) => {
      const body = request.body && typeof request.body === 'object' ? Object.entries(request.body) : [];
      const field =
        fieldWithNul(Object.entries(request.params as object)) ??
        fieldWithNul(Object.entries(request.query as object)) ??
        fieldWithNul(body);
      if (field) throw new InvalidCharacter(field);
    });

    ui.get<{ Params: { file: string } }>('/ui/static/:file', async (request, reply) => {
      const asset = Object.hasOwn(STATIC, request.params.file) ? STATIC[request.params.file] : undefined;
      if (!asset) return reply.code(404).type('text/plain').send('not found');
      return reply
        .type(asset.type)
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(asset.body);
    });

    for (const family of families) family(ui, page);

    ui.setErrorHandler(answerPageError(pages));
  });
}
