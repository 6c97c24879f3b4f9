import type { VssEvent } from '@vss/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, NotFoundError, UnauthorizedError, ValidationError, type VssClient } from '../src';
import { rejection, startTestServer, uniqueMac, type TestServer } from './support';

/** Takes events from an iterator until `done` says enough (or the time is up). */
async function take<T>(iterator: AsyncIterator<T>, done: (seen: T[]) => boolean, timeoutMs = 10_000): Promise<T[]> {
  const seen: T[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!done(seen)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${seen.length} events`);
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), remaining)),
    ]);
    if (next === 'timeout') throw new Error(`timed out after ${seen.length} events`);
    if (next.done) break;
    seen.push(next.value);
  }
  return seen;
}

/**
 * A fetch whose event-stream responses break (as a dropped connection does) after the n-th
 * message of each of the first responses: `cuts[i]` messages pass on connection i.
 */
function droppingFetch(cuts: number[], requests: Request[]): typeof fetch {
  let connection = 0;
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    requests.push(request);
    const allowed = cuts[connection++];
    if (allowed === undefined) return response;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let messages = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        messages += (decoder.decode(value).match(/\n\n/g) ?? []).length;
        if (messages >= allowed) {
          await reader.cancel();
          controller.error(new TypeError('terminated'));
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

describe('@vss/client events and webhooks against the real server', () => {
  let server: TestServer;
  let client: VssClient;

  beforeAll(async () => {
    server = await startTestServer('pglite');
    client = createClient({ baseUrl: server.url, token: server.token });
  });
  afterAll(() => server?.stop());

  async function camera(name: string) {
    const group = await client.treeElements.create({ name: `Group of ${name}` });
    return client.cameras.create({ name, mac: uniqueMac(), group_id: group.id });
  }
  const createdIds = (events: VssEvent[]) => events.flatMap((e) => (e.type === 'camera.created' ? [e.data.id] : []));

  it('events.stream yields events as they happen and ends when the signal aborts', async () => {
    const controller = new AbortController();
    const iterator = client.events.stream({ signal: controller.signal });
    const first = iterator.next();
    // The iterator connects on the first next(); give it a moment to subscribe.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const created = await camera('Streamed');
    const event = (await first).value as VssEvent;
    expect(event).toMatchObject({ type: 'camera.created', data: { id: created.id, name: 'Streamed' } });
    expect(event.id).toBeGreaterThan(0);
    controller.abort();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('events.stream reconnects with Last-Event-ID after a dropped connection, missing nothing', async () => {
    const requests: Request[] = [];
    // Connection 1 breaks after "retry" and the initial id (before any event); connection 2 after
    // "retry" and its first event; connection 3 stays.
    const dropping = createClient({ baseUrl: server.url, token: server.token, fetch: droppingFetch([2, 2], requests) });
    const controller = new AbortController();
    const iterator = dropping.events.stream({ signal: controller.signal, reconnect: { initialMs: 300, maxMs: 300 } });
    const pending = take(iterator, (seen) => createdIds(seen).length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ids: number[] = [];
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      ids.push((await camera(name)).id);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const seen = await pending;
    controller.abort();
    expect(createdIds(seen)).toEqual(ids);
    const eventIds = seen.map((e) => e.id);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(eventIds).toEqual([...eventIds].sort((a, b) => a - b));
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests[0]!.headers.get('last-event-id')).toBeNull();
    expect(requests[1]!.headers.get('last-event-id')).toMatch(/^\d+$/);
    expect(eventIds).toContain(Number(requests[2]!.headers.get('last-event-id')));
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${server.token}`);
  });

  it('events.stream resumes after a given id', async () => {
    const before = await camera('Before');
    const controller = new AbortController();
    const all = await take(client.events.stream({ after: 0, signal: controller.signal }), (seen) =>
      createdIds(seen).includes(before.id),
    );
    controller.abort();
    const marker = all.find((e) => e.type === 'camera.created' && e.data.id === before.id)!;
    const after = await camera('After');
    const resumed = new AbortController();
    const again = await take(client.events.stream({ after: marker.id, signal: resumed.signal }), (seen) => seen.length >= 1);
    resumed.abort();
    expect(again[0]).toMatchObject({ type: 'camera.created', data: { id: after.id } });
  });

  it('events.stream throws a refusal instead of retrying it', async () => {
    const anonymous = createClient({ baseUrl: server.url });
    expect(await rejection(anonymous.events.stream().next())).toBeInstanceOf(UnauthorizedError);
    expect(await rejection(client.events.stream({ after: -1 }).next())).toBeInstanceOf(ValidationError);
  });

  it('analyticCases.events yields the status changes of that case only', async () => {
    const { id: cameraId } = await camera('Analysed');
    const mine = await client.analyticCases.create(cameraId, { kind: 'motion_detection' });
    const other = await client.analyticCases.create(cameraId, { kind: 'motion_detection' });
    const controller = new AbortController();
    const iterator = client.analyticCases.events(cameraId, mine.id, { signal: controller.signal, after: 0 });
    const pending = take(iterator, (seen) => seen.length >= 2);
    await client.analyticCases.stop(cameraId, other.id);
    await client.analyticCases.stop(cameraId, mine.id);
    await client.analyticCases.restart(cameraId, mine.id);
    const seen = await pending;
    controller.abort();
    expect(seen.map((e) => e.data)).toEqual([
      { id: mine.id, camera_id: cameraId, from: 'CREATED', to: 'STOPPED' },
      { id: mine.id, camera_id: cameraId, from: 'STOPPED', to: 'PENDING' },
    ]);
  });

  it('webhooks: create (with the secret), list, get (without it) and delete', async () => {
    const created = await client.webhooks.create({ url: 'https://hooks.example.com/a', events: ['camera.created'] });
    expect(created).toMatchObject({ url: 'https://hooks.example.com/a', events: ['camera.created'] });
    expect(created.secret.length).toBeGreaterThanOrEqual(16);
    const { secret: _secret, ...shown } = created;
    expect(await client.webhooks.get(created.id)).toEqual(shown);
    expect(await client.webhooks.list()).toContainEqual(shown);
    await client.webhooks.delete(created.id);
    expect(await rejection(client.webhooks.get(created.id))).toBeInstanceOf(NotFoundError);
    expect(await rejection(client.webhooks.delete(created.id))).toBeInstanceOf(NotFoundError);
    expect(await rejection(client.webhooks.create({ url: 'ftp://example.com' }))).toBeInstanceOf(ValidationError);
  });
});
