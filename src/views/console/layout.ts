// The console's frame: a header with the instance's name, the org in context (a plain GET form, so it
// works without script) and sign-out; the main navigation; the page. One optional first-party script
// (/ui/static/console.js) adds copy buttons and confirmations; every page works without it.
import type { Texts } from '../i18n.ts';
import { html, type Markup } from '../html.ts';
import { PageMeta } from '../layout.ts';

export interface NavOrg {
  id: string;
  name: string;
}

export interface ConsoleFrame {
  t: Texts;
  instanceName: string;
  /** Which entry of the navigation is current. */
  area: string;
  /** The org in context and the ones the viewer may switch to; absent on pages without one (no access). */
  org?: { current: string; choices: NavOrg[] } | undefined;
  /** The navigation's entries shown (a project owner's: "Projects" only); absent: all. */
  areas?: readonly string[];
  csrf: string;
}

export const NAV = [
  ['overview', '/ui/console', 'navOverview'],
  ['orgs', '/ui/console/orgs', 'navOrgs'],
  ['projects', '/ui/console/projects', 'navProjects'],
  ['users', '/ui/console/users', 'navUsers'],
  ['idps', '/ui/console/idps', 'navIdps'],
  ['policies', '/ui/console/policies', 'navPolicies'],
  ['audit', '/ui/console/audit', 'navAudit'],
] as const;

/** A console link that keeps the org in context. */
export function withOrg(path: string, orgId: string | undefined): string {
  if (!orgId) return path;
  return `${path}${path.includes('?') ? '&' : '?'}org=${encodeURIComponent(orgId)}`;
}

export function ConsoleLayout({ frame, title, children }: { frame: ConsoleFrame; title: string; children: Markup }) {
  const { t, org } = frame;
  return html`<html lang=${t.lang}>
    <head>
      <${PageMeta} />
      <title>${title} · ${t.console} · ${frame.instanceName}</title>
      <link rel="stylesheet" href="/ui/static/style.css" />
      <link rel="stylesheet" href="/ui/static/console.css" />
      <link rel="icon" href="/ui/static/logo.svg" type="image/svg+xml" />
      <script src="/ui/static/console.js" defer></script>
    </head>
    <body class="console">
      <header class="console-header">
        <a class="brand" href="/ui/console"
          ><img src="/ui/static/logo.svg" alt="" width="28" height="28" /><span>${frame.instanceName}</span></a
        >
        ${
          org &&
          org.choices.length > 1 &&
          html`<form method="get" action="" class="org-switch">
          <label for="org-switch">${t.orgLabel}</label>
          <select id="org-switch" name="org">
            ${org.choices.map((o) => html`<option value=${o.id} selected=${o.id === org.current}>${o.name}</option>`)}
          </select>
          <button type="submit" class="secondary">${t.switchOrg}</button>
        </form>`
        }
        <form method="post" action="/ui/console/sign-out" class="sign-out">
          <input type="hidden" name="csrf" value=${frame.csrf} />
          <button type="submit" class="secondary">${t.signOut}</button>
        </form>
      </header>
      ${
        org &&
        html`<nav class="console-nav" aria-label=${t.mainNav}>
        <ul>
          ${NAV.filter(([area]) => !frame.areas || frame.areas.includes(area)).map(
            ([area, path, key]) =>
              html`<li>
                <a href=${withOrg(path, org.current)} aria-current=${area === frame.area ? 'page' : undefined}>
                  ${t[key]}
                </a>
              </li>`,
          )}
        </ul>
      </nav>`
      }
      <main class="console-main">
        <h1>${title}</h1>
        ${children}
      </main>
    </body>
  </html>`;
}
