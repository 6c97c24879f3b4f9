import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { events, webhookDeliveries, webhooks } from '../db/schema';
import { iso } from '../services/serialize';
import { DEFAULT_RETRY_SCHEDULE, retryDelay, scrubUrls, signWebhook, type RetrySchedule } from './signature';

export interface DispatcherOptions {
  /** How often due deliveries are looked for (besides right after each event). Default 1 s. */
  pollMs?: number;
  retry?: Partial<RetrySchedule>;
  /** Per attempt. Default 5 s. */
  timeoutMs?: number;
  /** Deliveries attempted at once. Default 8. */
  concurrency?: number;
}

/** How much of a receiver's answer is read (and then dropped): enough to reuse the connection. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const BATCH = 50;

/** Reads at most `limit` bytes of a body and cancels the rest. */
async function drain(response: Response, limit = MAX_RESPONSE_BYTES): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The receiver's answer beyond its status does not matter.
  }
}

/**
 * Delivers the outbox to webhooks: every `pollMs` and whenever kicked, the due deliveries are
 * POSTed, signed; a 2xx answer delivers, anything else is retried with exponential backoff until
 * the attempts are used up.
 */
export function createWebhookDispatcher(ctx: CoreContext, options: DispatcherOptions = {}) {
  const { db, logger } = ctx;
  const schedule: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 5_000;
  const concurrency = options.concurrency ?? 8;
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  async function attempt(due: {
    id: number;
    attempts: number;
    url: string;
    secretEncrypted: string;
    eventId: number;
    type: string;
    data: unknown;
    occurredAt: Date;
  }) {
    const body = JSON.stringify({ id: due.eventId, type: due.type, occurred_at: iso(due.occurredAt), data: due.data });
    const timestamp = Math.floor(Date.now() / 1000);
    let failure: string | undefined;
    try {
      const response = await fetch(due.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'VSS-Webhooks/1',
          'X-VSS-Event': due.type,
          'X-VSS-Delivery': String(due.id),
          'X-VSS-Timestamp': String(timestamp),
          'X-VSS-Signature': signWebhook(ctx.secrets.open(due.secretEncrypted), timestamp, body),
          'X-VSS-Attempt': String(due.attempts + 1),
        },
        body,
      });
      await drain(response);
      if (response.status < 200 || response.status > 299) failure = `HTTP ${response.status}`;
    } catch (error) {
      if (closed) return;
      const name = (error as Error).name;
      failure =
        name === 'TimeoutError' || name === 'AbortError'
          ? `no answer in ${Math.round(timeoutMs / 1000)} s`
          : scrubUrls(String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message));
    }
    const attempts = due.attempts + 1;
    const now = ctx.now();
    if (failure === undefined) {
      await db
        .update(webhookDeliveries)
        .set({ attempts, deliveredAt: now, nextAttemptAt: null, lastError: null })
        .where(eq(webhookDeliveries.id, due.id));
      return;
    }
    const delay = retryDelay(attempts, schedule);
    await db
      .update(webhookDeliveries)
      .set({ attempts, lastError: failure, nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay) })
      .where(eq(webhookDeliveries.id, due.id));
    logger.warn(delay === undefined ? 'webhook delivery given up' : 'webhook delivery failed', {
      delivery: due.id,
      event: due.eventId,
      attempts,
      reason: failure,
    });
  }

  async function round() {
    do {
      again = false;
      const due = await db
        .select({
          id: webhookDeliveries.id,
          attempts: webhookDeliveries.attempts,
          url: webhooks.url,
          secretEncrypted: webhooks.secretEncrypted,
          eventId: events.id,
          type: events.type,
          data: events.data,
          occurredAt: events.occurredAt,
        })
        .from(webhookDeliveries)
        .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
        .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
        .where(and(isNull(webhookDeliveries.deliveredAt), lte(webhookDeliveries.nextAttemptAt, ctx.now())))
        .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
        .limit(BATCH);
      for (let i = 0; i < due.length && !closed; i += concurrency) {
        await Promise.all(due.slice(i, i + concurrency).map((delivery) => attempt(delivery)));
      }
      if (due.length === BATCH) again = true;
    } while (again && !closed);
  }

  /** Looks for due deliveries now (or right after the round in progress). */
  function kick() {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((error: unknown) => logger.warn('webhook dispatch failed', { error }))
      .finally(() => {
        running = undefined;
      });
  }

  const timer = setInterval(kick, options.pollMs ?? 1_000);
  timer.unref();

  return {
    kick,
    /** Stops polling, aborts deliveries in flight and waits for the round to end. */
    async close() {
      closed = true;
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
