import type { VssEvent } from '@vss/schema';
import { ConnectionError, ServerError } from '../errors';
import type { Transport } from '../transport';

export interface EventStreamOptions {
  /** Start after this event id (what a previous stream's last event had); without it, from now on. */
  after?: number;
  /** Aborting ends the iteration (cleanly, without an error). */
  signal?: AbortSignal;
  /** Waits between reconnections: `initialMs`, doubling up to `maxMs`. Default 500 ms … 30 s. */
  reconnect?: { initialMs?: number; maxMs?: number };
}

/** One message of a text/event-stream, as the fields came. */
interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

/** Splits a text/event-stream body into messages (the WHATWG rules: CR, LF or CRLF; comments ignored). */
async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: SseMessage = {};
  let data: string[] | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let match: RegExpExecArray | null;
      const lineEnd = /\r\n|\r|\n/g;
      let consumed = 0;
      while ((match = lineEnd.exec(buffer)) !== null) {
        // A CR at the very end may be the first half of a CRLF still on its way.
        if (match[0] === '\r' && match.index === buffer.length - 1) break;
        const line = buffer.slice(consumed, match.index);
        consumed = match.index + match[0].length;
        if (line === '') {
          if (data !== undefined) message.data = data.join('\n');
          if (message.id !== undefined || message.data !== undefined) yield message;
          message = {};
          data = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') (data ??= []).push(value);
        else if (field === 'event') message.event = value;
        else if (field === 'id' && !value.includes('\0')) message.id = value;
      }
      buffer = buffer.slice(consumed);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Worth trying again: no answer, or the server's own trouble (5xx). A 401 or 422 would only repeat. */
const transient = (error: unknown) => error instanceof ConnectionError || error instanceof ServerError;

export function createEvents(transport: Transport) {
  /**
   * The server's events as they happen, over Server-Sent Events. A dropped connection is
   * reopened with `Last-Event-ID`, so no event is missed or repeated; the iteration ends when
   * `signal` aborts (or the loop breaks). A refusal (401, 422) is thrown.
   */
  async function* stream(options: EventStreamOptions = {}): AsyncGenerator<VssEvent, void, undefined> {
    const { signal } = options;
    const initialMs = options.reconnect?.initialMs ?? 500;
    const maxMs = options.reconnect?.maxMs ?? 30_000;
    let last = options.after;
    let failures = 0;
    // The request is aborted when the loop ends early, too, so that no connection is left open.
    const local = new AbortController();
    const abort = () => local.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      while (!local.signal.aborted) {
        try {
          const response = await transport.open('streamEvents', {
            query: {},
            headers: last === undefined ? {} : { 'last-event-id': String(last) },
            signal: local.signal,
          });
          if (!response.body) throw new ConnectionError({ message: 'The event stream has no body.', operation: 'streamEvents', timeout: false });
          for await (const message of parseSse(response.body)) {
            if (message.id !== undefined && /^\d+$/.test(message.id)) last = Number(message.id);
            if (message.data === undefined) continue;
            failures = 0;
            yield JSON.parse(message.data) as VssEvent;
          }
        } catch (error) {
          if (local.signal.aborted) return;
          if (!transient(error) && !(error instanceof TypeError) && !(error instanceof DOMException)) throw error;
        }
        if (local.signal.aborted) return;
        // The stream ended or broke: wait a little longer each time, then resume after `last`.
        failures += 1;
        await sleep(Math.min(maxMs, initialMs * 2 ** (failures - 1)), local.signal);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
      local.abort();
    }
  }

  return { stream };
}

export type EventsNamespace = ReturnType<typeof createEvents>;
