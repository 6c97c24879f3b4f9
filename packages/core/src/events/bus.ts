import type { EventData, EventType, VssEvent } from '@vss/schema';
import { asc, desc, gt, lt } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { events, webhookDeliveries, webhooks } from '../db/schema';
import { iso } from '../services/serialize';

export type EventListener = (event: VssEvent) => void;

export interface Subscription {
  /** Settles once the replay is delivered and the subscription is live. */
  ready: Promise<void>;
  /** Stops delivering; safe to call more than once. */
  close(): void;
}

export interface EventBusOptions {
  /** Called after each event is stored with its deliveries, to wake the webhook dispatcher. */
  onStored?: () => void;
}

/** Emits one event; never throws (a failure to store an event is logged, not the caller's problem). */
export type Emit = <T extends EventType>(type: T, data: EventData<T>) => Promise<void>;

/** For services created without a bus (unit tests of a single service). */
export const noEmit: Emit = async () => {};

const REPLAY_PAGE = 500;

type EventRow = typeof events.$inferSelect;
const toEvent = (row: EventRow) =>
  ({ id: row.id, type: row.type, occurred_at: iso(row.occurredAt), data: row.data }) as VssEvent;

/**
 * The event bus: `emit` stores the event in the outbox (with a delivery per matching webhook) and
 * then hands it to in-process subscribers. Emits are stored one after another, so subscribers see
 * ids in increasing order; `subscribe` replays the outbox after an id and then goes live without
 * a gap or a duplicate in between.
 */
export function createEventBus(ctx: CoreContext, options: EventBusOptions = {}) {
  const { db, logger } = ctx;
  const listeners = new Set<(event: VssEvent) => void>();
  const ends = new Set<() => void>();
  /** The chain of emits, so that ids are stored and announced in order. */
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function store(type: EventType, data: unknown): Promise<VssEvent> {
    return db.transaction(async (tx) => {
      const [row] = await tx.insert(events).values({ type, data, occurredAt: ctx.now() }).returning();
      const targets = await tx.select({ id: webhooks.id, events: webhooks.events }).from(webhooks);
      const matching = targets.filter((hook) => hook.events === null || hook.events.includes(type));
      if (matching.length > 0) {
        await tx
          .insert(webhookDeliveries)
          .values(matching.map((hook) => ({ webhookId: hook.id, eventId: row!.id, nextAttemptAt: ctx.now() })));
      }
      return toEvent(row!);
    });
  }

  const emit: Emit = (type, data) => {
    if (closed) return Promise.resolve();
    const done = tail.then(async () => {
      try {
        const event = await store(type, data);
        for (const listener of [...listeners]) {
          try {
            listener(event);
          } catch (error) {
            logger.warn('event subscriber failed', { type, error });
          }
        }
        if (options.onStored) options.onStored();
      } catch (error) {
        logger.warn('event could not be stored', { type, error });
      }
    });
    tail = done;
    return done;
  };

  /**
   * Delivers every event after `afterId` (or, without one, only events from now on) and then the
   * live ones. Without `afterId`, `onStart` is told the id the subscription starts after, before any
   * event; `onEnd` is called when the bus closes.
   */
  function subscribe(
    afterId: number | undefined,
    listener: EventListener,
    hooks: { onStart?: (afterId: number) => void; onEnd?: () => void } = {},
  ): Subscription {
    let last = 0;
    let live = false;
    let open = true;
    const buffered: VssEvent[] = [];
    const deliver = (event: VssEvent) => {
      if (!open || event.id <= last) return;
      last = event.id;
      listener(event);
    };
    // Registered before the replay reads the outbox: an event stored meanwhile is either in the
    // replay or in the buffer (or both, and then delivered once).
    const onEvent = (event: VssEvent) => (live ? deliver(event) : buffered.push(event));
    listeners.add(onEvent);
    const end = () => {
      close();
      hooks.onEnd?.();
    };
    ends.add(end);
    function close() {
      open = false;
      listeners.delete(onEvent);
      ends.delete(end);
    }

    const ready = (async () => {
      if (afterId === undefined) {
        const [newest] = await db.select({ id: events.id }).from(events).orderBy(desc(events.id)).limit(1);
        last = newest?.id ?? 0;
        if (open) hooks.onStart?.(last);
      } else {
        last = afterId;
        for (;;) {
          const rows = await db.select().from(events).where(gt(events.id, last)).orderBy(asc(events.id)).limit(REPLAY_PAGE);
          for (const row of rows) deliver(toEvent(row));
          if (rows.length < REPLAY_PAGE || !open) break;
        }
      }
      for (const event of buffered.splice(0)) deliver(event);
      live = true;
    })();
    ready.catch((error: unknown) => {
      logger.warn('event replay failed', { error });
      end();
    });
    return { ready, close };
  }

  return {
    emit,
    subscribe,

    /** Deletes events that occurred before `before` (their deliveries go with them). */
    async prune(before: Date): Promise<number> {
      const deleted = await db.delete(events).where(lt(events.occurredAt, before)).returning({ id: events.id });
      return deleted.length;
    },

    /** Ends every subscription and waits for emits in flight. */
    async close() {
      closed = true;
      for (const end of [...ends]) end();
      await tail;
    },
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
