import type { Vss } from '@vss/core';
import { VssError } from '@vss/core';
import { EventsQuery, issuesToErrors, validationMessage, type VssEvent } from '@vss/schema';
import { getQuery, getRequestHeader, type H3Event } from 'h3';
import { Readable } from 'node:stream';
import type { Mount, Reply } from './app';

/** A comment line every so often keeps proxies and clients from taking a quiet stream for a dead one. */
export const KEEPALIVE_MS = 15_000;
/** A client that reads this far behind is cut off; it resumes from its Last-Event-ID. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const SSE_HEADERS = () => ({
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
});

/** Where the stream starts: the Last-Event-ID header (a reconnecting EventSource) over `?after=`. */
function startAfter(event: H3Event): number | undefined {
  const header = getRequestHeader(event, 'last-event-id');
  const query = getQuery(event);
  const result = EventsQuery.safeParse(header === undefined || header === '' ? query : { ...query, after: header }, {
    reportInput: true,
  });
  if (result.success) return result.data.after;
  const errors = issuesToErrors(result.error.issues);
  throw new VssError('validation_failed', validationMessage(errors), { errors });
}

/** One event in the text/event-stream format; the data is one line of JSON. */
export const formatEvent = (event: VssEvent) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

function eventStream(vss: Vss, after: number | undefined): Reply {
  const state: { keepalive?: NodeJS.Timeout; subscription?: ReturnType<Vss['events']['subscribe']> } = {};
  const stop = () => {
    clearInterval(state.keepalive);
    state.subscription?.close();
  };
  // Destroyed when the client goes away (the pipe breaks) or falls too far behind.
  const body = new Readable({
    read() {},
    destroy(error, callback) {
      stop();
      callback(error);
    },
  });
  const write = (text: string) => {
    if (body.destroyed) return;
    if (body.readableLength > MAX_BUFFERED_BYTES) body.destroy();
    else body.push(text);
  };
  // Sent at once, so that the client has its headers before the first event.
  write('retry: 1000\n\n');
  state.subscription = vss.events.subscribe(after, (event) => write(formatEvent(event)), {
    // An id without data: a client that reconnects before any event arrived resumes from here.
    onStart: (id) => write(`id: ${id}\n\n`),
    // The server is closing: end the response cleanly.
    onEnd: () => {
      stop();
      if (!body.destroyed) body.push(null);
    },
  });
  state.keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
  state.keepalive.unref();
  return { status: 200, type: 'text/event-stream; charset=utf-8', body };
}

export function mountEventRoutes(mount: Mount, vss: Vss) {
  mount('streamEvents', ({ event }) => eventStream(vss, startAfter(event)), { headers: SSE_HEADERS });

  mount('createWebhook', async ({ body }) => ({ status: 201, json: await vss.webhooks.create(body) }));
  mount('listWebhooks', async () => ({ status: 200, json: await vss.webhooks.list() }));
  mount('getWebhook', async ({ params }) => ({ status: 200, json: await vss.webhooks.get(params.webhook as number) }));
  mount('deleteWebhook', async ({ params }) => {
    await vss.webhooks.delete(params.webhook as number);
    return { status: 204 };
  });
}
