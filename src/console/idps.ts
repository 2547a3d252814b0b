// Console area "Identity providers": the instance's JWT IdPs (ListIDPs), create one with AddJWTIDP's
// fields, and an IdP's page: its settings (UpdateIDP) and JWT configuration (UpdateIDPJWTConfig) as two forms,
// whether the login offers it (AddIDPToLoginPolicy / RemoveIDPFromLoginPolicy), deactivate / reactivate, remove.
// IdPs belong to the instance and the API serves them to IAM_OWNER only (management/handlers/idps.ts), so an org's
// owner is told so and sees none, as on the audit page.
import { AdminService as A } from '@zitadel/proto/zitadel/admin_pb.js';
import { type IDP, IDPFieldName, IDPState, IDPStylingType } from '@zitadel/proto/zitadel/idp_pb.js';
import { html } from '../views/html.ts';
import { Checkbox, Flash, Input, PostForm, Select, StateBadge, Submit, Table } from '../views/console/components.ts';
import { type ConsolePage, type ConsoleRouter, inputError, url } from './page.ts';
import { pageChange, removal, runStateChange, StateForms } from './actions.ts';

type FlashState = { notice?: string | undefined; error?: string | undefined; status?: number };

interface IdpForm {
  name: string;
  stylingType: string;
  autoRegister: boolean;
  issuer: string;
  jwtEndpoint: string;
  keysEndpoint: string;
  headerName: string;
}

const idpPath = (id: string, rest = '') => `/idps/${encodeURIComponent(id)}${rest}`;
const idpIdOf = (page: ConsolePage) => (page.request.params as { id: string }).id;
const savedNotice = (page: ConsolePage) =>
  (page.request.query as { saved?: string }).saved ? page.t.saved : undefined;

/** The IdPs the login policy offers, by ID (ListLoginPolicyIDPs). */
async function offeredIds(page: ConsolePage): Promise<Set<string>> {
  const listed = await page.run(A.method.listLoginPolicyIDPs, { query: { limit: 1000 } });
  return new Set(listed.result.map((r) => r.idpId));
}

const STYLING = [IDPStylingType.STYLING_TYPE_UNSPECIFIED, IDPStylingType.STYLING_TYPE_GOOGLE] as const;

function SettingsFields({ page, form }: { page: ConsolePage; form: Partial<IdpForm> }) {
  const { t } = page;
  const options = STYLING.map((s): [string, string] => [String(s), s ? t.idpStylingGoogle! : t.idpStylingDefault!]);
  return html`<${Input} name="name" label=${t.name} value=${form.name} required=${true} />
    <${Select} name="stylingType" label=${t.idpStyling} value=${form.stylingType ?? '0'} options=${options} />
    <${Checkbox} name="autoRegister" label=${t.idpAutoRegister} checked=${form.autoRegister ?? false} />`;
}

function JwtFields({ page, form }: { page: ConsolePage; form: Partial<IdpForm> }) {
  const { t } = page;
  return html`<${Input} name="issuer" type="url" label=${t.idpIssuer} value=${form.issuer} required=${true} />
    <${Input} name="jwtEndpoint" type="url" label=${t.idpJwtEndpoint} value=${form.jwtEndpoint} required=${true} />
    <${Input} name="keysEndpoint" type="url" label=${t.idpKeysEndpoint} value=${form.keysEndpoint} required=${true} />
    <${Input}
      name="headerName"
      label=${t.idpHeaderName}
      value=${form.headerName ?? 'authorization'}
      required=${true}
      help=${t.idpHeaderNameHelp}
    />`;
}

async function showList(page: ConsolePage, form: Partial<IdpForm> = {}, flash: FlashState = {}) {
  const { t } = page;
  if (!page.viewer.isIamOwner)
    return page.render('idps', t.idpsTitle!, html`<p class="lead">${t.idpsInstanceOnly}</p>`);
  const [idps, offered] = await Promise.all([
    page.run(A.method.listIDPs, { query: { limit: 1000 }, sortingColumn: IDPFieldName.IDP_FIELD_NAME_NAME }),
    offeredIds(page),
  ]);
  const body = html`<${Flash} notice=${flash.notice} />
    <${Table}
      t=${t}
      caption=${t.idpsTitle}
      head=${[t.name, t.idpIssuer, t.state, t.idpOffered]}
      rows=${idps.result.map((idp) => [
        html`<a href=${url(page, idpPath(idp.id))}>${idp.name}</a>`,
        idp.config.case === 'jwtConfig' ? idp.config.value.issuer : '',
        html`<${StateBadge} t=${t} active=${idp.state === IDPState.IDP_STATE_ACTIVE} />`,
        offered.has(idp.id) ? t.yes : t.no,
      ])}
    />
    <section aria-labelledby="new-idp">
      <h2 id="new-idp">${t.newIdp}</h2>
      <${Flash} error=${flash.error} />
      <${PostForm} action=${url(page, '/idps')} csrf=${page.csrf}>
        <${SettingsFields} page=${page} form=${form} />
        <${JwtFields} page=${page} form=${form} />
        <${Submit} label=${t.createIdp} />
      <//>
    </section>`;
  return page.render('idps', t.idpsTitle!, body, flash.status);
}

const formOf = (page: ConsolePage): IdpForm => ({
  name: page.field('name'),
  stylingType: page.field('stylingType'),
  autoRegister: page.field('autoRegister') === 'on',
  issuer: page.field('issuer'),
  jwtEndpoint: page.field('jwtEndpoint'),
  keysEndpoint: page.field('keysEndpoint'),
  headerName: page.field('headerName'),
});

/** A styling type as posted: a number of the enum; anything else is the API's own refusal of an undefined value. */
const stylingOf = (form: IdpForm) => (/^\d{1,3}$/.test(form.stylingType) ? Number(form.stylingType) : -1);

async function create(page: ConsolePage) {
  const form = formOf(page);
  try {
    const { idpId } = await page.run(A.method.addJWTIDP, {
      name: form.name,
      stylingType: stylingOf(form),
      autoRegister: form.autoRegister,
      issuer: form.issuer,
      jwtEndpoint: form.jwtEndpoint,
      keysEndpoint: form.keysEndpoint,
      headerName: form.headerName,
    });
    return page.reply.redirect(url(page, idpPath(idpId, '?saved=1')), 303);
  } catch (error) {
    return showList(page, form, { error: inputError(error), status: 400 });
  }
}

const formOfIdp = (idp: IDP | undefined): Partial<IdpForm> => ({
  name: idp?.name,
  stylingType: String(idp?.stylingType ?? 0),
  autoRegister: idp?.autoRegister,
  ...(idp?.config.case === 'jwtConfig' ? idp.config.value : {}),
});

async function showIdp(page: ConsolePage, flash: FlashState = {}) {
  const { t } = page;
  const id = idpIdOf(page);
  const [{ idp }, offered] = await Promise.all([page.run(A.method.getIDPByID, { id }), offeredIds(page)]);
  const form = formOfIdp(idp);
  const active = idp?.state === IDPState.IDP_STATE_ACTIVE;
  const act = (rest: string) => url(page, idpPath(id, rest));
  const isOffered = offered.has(id);
  const body = html`<${Flash} notice=${flash.notice} error=${flash.error} />
    <p><${StateBadge} t=${t} active=${active} /></p>
    <section aria-labelledby="settings">
      <h2 id="settings">${t.settingsTitle}</h2>
      <${PostForm} action=${act('')} csrf=${page.csrf}>
        <${SettingsFields} page=${page} form=${form} />
        <${Submit} label=${t.save} />
      <//>
    </section>
    <section aria-labelledby="jwt-config">
      <h2 id="jwt-config">${t.idpJwtTitle}</h2>
      <${PostForm} action=${act('/jwt')} csrf=${page.csrf}>
        <${JwtFields} page=${page} form=${form} />
        <${Submit} label=${t.idpSaveJwt} />
      <//>
    </section>
    <section aria-labelledby="sign-in">
      <h2 id="sign-in">${t.idpSignInTitle}</h2>
      <p id="offered">${isOffered ? t.idpOfferedLead : t.idpNotOfferedLead}</p>
      <${PostForm} action=${act('/login-policy')} csrf=${page.csrf} class="inline">
        <input type="hidden" name="offer" value=${isOffered ? 'no' : 'yes'} />
        <${Submit} label=${isOffered ? t.idpStopOffering : t.idpOffer} kind="secondary" />
      <//>
    </section>
    <section class="actions"><${StateForms} t=${t} csrf=${page.csrf} active=${active} action=${act} /></section>`;
  return page.render('idps', idp?.name ?? id, body, flash.status);
}

/** A change on an IdP's page, then the page again (303 with a notice, or 400 with the API's message). */
const change = pageChange(showIdp, (page, idpId) => url(page, idpPath(idpId, '?saved=1')));

export function registerIdps(router: ConsoleRouter): void {
  router.get('/idps', (page) => showList(page, {}, { notice: savedNotice(page) }));
  router.post('/idps', create);
  router.get('/idps/:id', (page) => showIdp(page, { notice: savedNotice(page) }));
  router.post(
    '/idps/:id',
    change((page, idpId) => {
      const form = formOf(page);
      return page.run(A.method.updateIDP, {
        idpId,
        name: form.name,
        stylingType: stylingOf(form),
        autoRegister: form.autoRegister,
      });
    }),
  );
  router.post(
    '/idps/:id/jwt',
    change((page, idpId) => {
      const { issuer, jwtEndpoint, keysEndpoint, headerName } = formOf(page);
      return page.run(A.method.updateIDPJWTConfig, { idpId, issuer, jwtEndpoint, keysEndpoint, headerName });
    }),
  );
  router.post(
    '/idps/:id/state',
    change((page, idpId) =>
      runStateChange(page, { reactivate: A.method.reactivateIDP, deactivate: A.method.deactivateIDP }, { idpId }),
    ),
  );
  router.post(
    '/idps/:id/login-policy',
    change((page, idpId) =>
      page.field('offer') === 'yes'
        ? page.run(A.method.addIDPToLoginPolicy, { idpId })
        : page.run(A.method.removeIDPFromLoginPolicy, { idpId }),
    ),
  );
  router.post(
    '/idps/:id/remove',
    removal(
      async (page) => (await page.run(A.method.getIDPByID, { id: idpIdOf(page) })).idp?.name ?? '',
      (page) => page.run(A.method.removeIDP, { idpId: idpIdOf(page) }),
      (page) => url(page, idpPath(idpIdOf(page))),
      (page) => url(page, '/idps?saved=1'),
    ),
  );
}
