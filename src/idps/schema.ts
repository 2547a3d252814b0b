// Input rules for JWT identity providers beyond the proto's length limits. jwtEndpoint is where the browser is sent and
// keysEndpoint is fetched by the server (a bad URL could reach the private network), so both must be plain https URLs:
// `file:`, `data:` or cleartext `http:` to another host (a cloud metadata address, say) are refused when saved.
import { invalidArgument } from '../platform/errors.ts';
import type { JwtIdpConfig } from './queries.ts';

const URL_FIELDS = [
  ['jwtEndpoint', 'JwtEndpoint'],
  ['keysEndpoint', 'KeysEndpoint'],
] as const;

/** localhost and the loopback ranges (127.0.0.0/8, ::1); URL normalises IPv4 spellings such as 127.1 first. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Why a value is not an acceptable endpoint URL, or undefined when it is. */
export function endpointUrlProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (!url) return 'must be an absolute URL';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'must be an https URL (http only for loopback hosts)';
  }
  if (url.username || url.password) return 'must not contain credentials';
  // URL drops an empty fragment ("https://x/#"), so look at the text itself.
  if (value.includes('#')) return 'must not contain a fragment';
  return undefined;
}

/** Throws INVALID_ARGUMENT naming the first bad field, as ZITADEL's proto validation does. */
export function checkJwtIdpConfig(
  config: Pick<JwtIdpConfig, 'jwtEndpoint' | 'keysEndpoint'>,
  request: 'AddJWTIDPRequest' | 'UpdateIDPJWTConfigRequest',
): void {
  for (const [field, goName] of URL_FIELDS) {
    const problem = endpointUrlProblem(config[field]);
    if (problem) throw invalidArgument(`invalid ${request}.${goName}: ${problem}`, 'IDP-Url5s');
  }
}
