// How the pages answer a request refused a place in the hashing queue (users/passwords.ts): Retry-After, and the
// status and message of the bound that refused it, so a client's own excess reads as such (429, not 503).
import type { FastifyReply } from 'fastify';
import type { Texts } from '../views/i18n.ts';
import type { HashRefusal } from '../users/passwords.ts';

export function answerHashRefusal(
  reply: FastifyReply,
  refusal: HashRefusal,
  t: Texts,
): { status: 429 | 503; alert: string } {
  reply.header('retry-after', String(refusal.retryAfter));
  return { status: refusal.status, alert: (refusal.status === 503 ? t.errorBusy : t.errorHashShare)! };
}
