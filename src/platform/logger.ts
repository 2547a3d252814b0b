// JSON logs (pino) with secrets redacted wherever they could appear (security.md §21).
import { pino, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-zitadel-orgid"]', 'res.headers["set-cookie"]',
  '*.password', '*.passwordHash', '*.password_hash', '*.secret', '*.clientSecret', '*.client_secret', '*.secret_hash',
  '*.token', '*.access_token', '*.refresh_token', '*.id_token', '*.assertion', '*.client_assertion', '*.code',
  '*.key', '*.privateKey', '*.private_jwk', '*.masterKey',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'gatehouse' } }, destination as any);
}
