// What the provider reports: token counts for /metrics, and database outages answered as 503 rather than
// oidc-provider's generic 500, so clients and balancers know to retry.
import type Provider from 'oidc-provider';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../platform/metrics.ts';
import { classifyError } from '../../platform/error-class.ts';

export function observeProvider(provider: Provider, metrics: Metrics, log: FastifyBaseLogger): void {
  provider.on('grant.success', (ctx) => {
    metrics.tokensIssued.inc({ grant: String(ctx.oidc.params?.grant_type ?? 'unknown') });
  });
  provider.on('authorization.success', (ctx) => {
    // Tokens from the authorization endpoint itself: the implicit flow (response_type with id_token or token).
    const responseType = String(ctx.oidc.params?.response_type ?? '');
    if (responseType !== 'code') metrics.tokensIssued.inc({ grant: 'implicit' });
  });
  // Emitted by the provider's error handler after it set the response but before Koa writes it.
  provider.on('server_error', (ctx, error) => {
    const kind = classifyError(error);
    if (kind.kind === 'aborted') {
      log.info('client aborted the request');
      return;
    }
    if (kind.kind === 'outage') {
      log.error({ err: error }, 'database unavailable');
      ctx.status = 503;
      ctx.set('Retry-After', String(kind.retryAfter));
      return;
    }
    log.error({ err: error }, 'oidc server error');
  });
}
