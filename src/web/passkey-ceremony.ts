// What the passkey sign-in (login/) and adding a passkey (account/) share: this instance as the WebAuthn relying
// party, and the browser's answer as it is posted back.
import type { FastifyRequest } from 'fastify';
import { relyingParty } from '../passkeys/service.ts';
import { formField } from './forms.ts';
import type { PageDeps } from './page-deps.ts';

/** The posted credential; a missing one is a credential nobody can verify (400, not 500). */
export const credentialOf = (request: FastifyRequest) => formField(request, 'credential') ?? '';

export const rpOf = (deps: PageDeps) => relyingParty(deps.config.issuer, deps.pages.instanceName);
