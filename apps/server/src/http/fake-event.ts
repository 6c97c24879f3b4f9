import type { IncomingMessage, ServerResponse } from 'node:http';
import { createEvent, type H3Event } from 'h3';

/** An H3Event over a request that never touches a socket, for the helpers that only read headers. */
export function fakeEvent(
  options: { headers?: Record<string, string>; remoteAddress?: string; method?: string; url?: string } = {},
): H3Event {
  const req = {
    method: options.method ?? 'GET',
    url: options.url ?? '/',
    headers: Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
    socket: { remoteAddress: options.remoteAddress },
  };
  return createEvent(req as unknown as IncomingMessage, {} as ServerResponse);
}
