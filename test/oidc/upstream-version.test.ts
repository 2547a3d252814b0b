// The fast endpoints (src/oidc/fast/) answer requests the way oidc-provider would, by mirroring its code: client
// authentication, CORS, error shapes, the code and refresh grants and the payloads they write. They follow one major
// version of the library (src/oidc/protocol.ts OIDC_PROVIDER_MAJOR); an upgrade to another major fails here, so the
// fast paths are compared with the new code before they can silently answer differently from the provider.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OIDC_PROVIDER_MAJOR } from '../../src/oidc/protocol.ts';

const INSTALLED = resolve(import.meta.dirname, '../../node_modules/oidc-provider/package.json');

/** The installed oidc-provider's version. */
function installedVersion(): string {
  return (JSON.parse(readFileSync(INSTALLED, 'utf8')) as { version: string }).version;
}

/** What to do when the installed major version is not the followed one; undefined when it is. */
function mismatch(installed: string): string | undefined {
  if (Number(installed.split('.')[0]) === OIDC_PROVIDER_MAJOR) return undefined;
  return (
    `oidc-provider ${installed} is installed, but src/oidc/fast/ follows ${OIDC_PROVIDER_MAJOR}.x. Re-check each ` +
    `fast endpoint against the library's files its header names, under the package's lib/ (client-auth.ts: ` +
    `shared/client_auth.js and jwt_client_auth.js; cors.ts: shared/cors.js; oauth.ts: shared/reject_dupes.js and ` +
    `error_handler.js; user-grants.ts: actions/grants/authorization_code.js and refresh_token.js, ` +
    `helpers/grant_common.js, grant_source.js, pkce.js and the payloads of models/; userinfo.ts: ` +
    `helpers/oidc_context.js), and CLIENT_ASSERTION_ALGS in src/oidc/protocol.ts; then set OIDC_PROVIDER_MAJOR there.`
  );
}

describe('the oidc-provider version the fast endpoints follow', () => {
  it('is the major version installed', () => {
    const problem = mismatch(installedVersion());
    if (problem) expect.fail(problem); // the whole message: what to re-check
  });

  it('names what to re-check when another major version is installed', () => {
    expect(mismatch(`${OIDC_PROVIDER_MAJOR}.99.0`)).toBeUndefined();
    const message = mismatch(`${OIDC_PROVIDER_MAJOR + 1}.0.0`);
    expect(message).toContain(`follows ${OIDC_PROVIDER_MAJOR}.x. Re-check each fast endpoint`);
    expect(message).toContain('user-grants.ts: actions/grants/authorization_code.js');
  });
});
