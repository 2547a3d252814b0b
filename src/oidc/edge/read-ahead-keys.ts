// What the read-ahead of an authorization request (../read-ahead.ts) looks up: the session its cookie names, its
// client (authorization) or its interaction (resume). Raw values: the provider still checks the cookie's signature
// and the request, and a row it does not ask for is never used.
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../provider/provider.ts';
import type { ReadAheadKeys } from '../read-ahead.ts';

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of request.headers.cookie?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

export function authorizationKeys(request: FastifyRequest): ReadAheadKeys {
  return {
    sessionId: cookie(request, SESSION_COOKIE),
    clientId: text((request.query as Record<string, unknown>).client_id),
  };
}

export function resumeKeys(request: FastifyRequest): ReadAheadKeys {
  return {
    sessionId: cookie(request, SESSION_COOKIE),
    interactionId: text((request.params as Record<string, unknown>).uid),
  };
}
