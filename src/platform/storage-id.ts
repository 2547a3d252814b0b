// The storage id of a secret the server hands out (a token, a code, a session id): its SHA-256, so that a table
// holding the id never holds a usable secret. One definition, since a token minted in one domain (a personal access
// token in users/) is looked up by the same id as oidc-provider's tokens (oidc/queries.ts).
import { hash } from 'node:crypto';

/** Storage id of a token, code or session id: its SHA-256. */
// crypto.hash: one call, a third of createHash's time (several ids are hashed per request)
export const hashId = (id: string) => hash('sha256', id, 'base64url');
