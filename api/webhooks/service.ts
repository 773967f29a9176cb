// Where the service starts its webhook dispatcher: on every process that
// runs partition leaders (roles `all` and `engine`; `api` processes send
// nothing), unless ORCA_WEBHOOK_DISPATCHER=off, with the configuration's
// webhook settings and the service's metrics. The dispatchers of all pods
// share the outbox through their claims. The same processes prune expired
// sign-in codes and sessions (api/identity/login-prune.ts) and the delivery
// log past its retention (log-prune.ts): housekeeping that wants one place to
// run beside the engine, stopped with the dispatcher.
import type { Engine } from '../../engine/index.ts';
import type { AppConfig } from '../config.ts';
import { startLoginPrune } from '../identity/login-prune.ts';
import type { OrcaMetrics } from '../metrics/orca-metrics.ts';
import { startLogPrune } from './log-prune.ts';
import { startWebhookDispatcher, type DispatcherOptions, type WebhookDispatcher } from './dispatcher.ts';

/** The dispatcher for this process, or undefined where none runs. `options` are test hooks (clock, schedule, name resolution). */
export function serviceDispatcher(
  config: AppConfig,
  engine: Engine,
  metrics: OrcaMetrics | undefined,
  log: (error: unknown) => void,
  options: Partial<DispatcherOptions> = {},
): WebhookDispatcher | undefined {
  if (!config.webhooks.dispatcher || config.engine.role === 'api') return undefined;
  const dispatcher = startWebhookDispatcher({
    db: engine.store.db,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    secretKey: config.webhooks.secretKey,
    timeoutMs: config.webhooks.timeoutMs,
    perEndpoint: config.webhooks.perEndpoint,
    onOutcome: metrics && ((outcome) => metrics.webhookDeliveries.inc({ outcome })),
    onError: log,
    attach: (taker) => engine.attachWebhookTaker(taker),
    ...options,
  });
  const prune = startLoginPrune({ repo: engine.store.login, now: options.now, onError: log });
  const logPrune = startLogPrune({ repo: engine.store.webhooks, retentionMs: config.webhooks.logRetentionMs, now: options.now, onError: log });
  return {
    nudge: () => dispatcher.nudge(),
    async stop() {
      await logPrune.stop();
      await prune.stop();
      await dispatcher.stop();
    },
  };
}
