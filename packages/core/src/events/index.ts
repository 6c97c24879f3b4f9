import type { CoreContext } from '../context';
import { createEventBus } from './bus';
import { createWebhookDispatcher, type DispatcherOptions } from './dispatcher';
import { createWebhookService } from './webhooks';

export { createEventBus, noEmit, type Emit, type EventBus, type EventListener, type Subscription } from './bus';
export { createWebhookDispatcher, type DispatcherOptions } from './dispatcher';
export { DEFAULT_RETRY_SCHEDULE, retryDelay, scrubUrls, signWebhook, type RetrySchedule } from './signature';
export { createWebhookService, type WebhookService } from './webhooks';

export interface EventsOptions {
  webhooks?: DispatcherOptions;
  /** How long events are kept. Default 7 days. */
  retentionMs?: number;
  /** How often old events are deleted. Default 1 hour. */
  pruneIntervalMs?: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** The bus, the webhook dispatcher it wakes, the webhooks service and the outbox's pruning, together. */
export function createEvents(ctx: CoreContext, options: EventsOptions = {}) {
  const dispatcher = createWebhookDispatcher(ctx, options.webhooks);
  const bus = createEventBus(ctx, { onStored: dispatcher.kick });
  const retentionMs = options.retentionMs ?? 7 * DAY_MS;
  let pruning: Promise<unknown> = Promise.resolve();
  const prune = () => {
    pruning = bus
      .prune(new Date(ctx.now().getTime() - retentionMs))
      .then((count) => count > 0 && ctx.logger.info('old events deleted', { count }))
      .catch((error: unknown) => ctx.logger.warn('old events could not be deleted', { error }));
  };
  const timer = setInterval(prune, options.pruneIntervalMs ?? 3600_000);
  timer.unref();
  prune();

  return {
    emit: bus.emit,
    subscribe: bus.subscribe,
    webhooks: createWebhookService(ctx),
    /** Deletes the events older than the retention now. */
    prune: () => bus.prune(new Date(ctx.now().getTime() - retentionMs)),
    async close() {
      clearInterval(timer);
      await bus.close();
      await dispatcher.close();
      await pruning;
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
