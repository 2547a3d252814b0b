// JSON logs (pino) with secrets redacted wherever they could appear (security.md §21).
import { pino, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-zitadel-orgid"]', 'res.headers["set-cookie"]',
  '*.password', '*.passwordHash', '*.password_hash', '*.secret', '*.clientSecret', '*.client_secret', '*.secret_hash',
  '*.token', '*.access_token', '*.refresh_token', '*.id_token', '*.assertion', '*.client_assertion', '*.code',
  '*.key', '*.privateKey', '*.private_jwk', '*.masterKey',
];

// Query parameters that carry credentials (end_session's id_token_hint, a token in a URL) are logged redacted.
const SECRET_QUERY = /([?&](?:id_token_hint|access_token|code|token|assertion|client_secret|login_hint_token)=)[^&#]*/gi;

interface LoggedRequest { method?: string; url?: string; host?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }

function serializeRequest(req: LoggedRequest) {
  return { method: req.method, url: req.url?.replace(SECRET_QUERY, '$1[redacted]'), host: req.host ?? req.hostname, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest }, base: { service: 'gatehouse' } }, destination as any);
}
