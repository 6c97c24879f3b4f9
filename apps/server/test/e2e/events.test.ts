import type { IntercomDriver } from '@vss/core';
import { VssError } from '@vss/core';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, expectUnauthenticated, expectValidationError, type Json } from '../support/fixtures';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

interface SseEvent {
  id: number;
  type: string;
  data: Json;
}

/** An open GET /api/admin/v1/events, parsed as it arrives. */
async function openEvents(server: TestServer, init: { after?: number; lastEventId?: number } = {}) {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, accept: 'text/event-stream' };
  if (init.lastEventId !== undefined) headers['last-event-id'] = String(init.lastEventId);
  const query = init.after === undefined ? '' : `?after=${init.after}`;
  const response = await fetch(`${server.url}/api/admin/v1/events${query}`, { headers, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const events: SseEvent[] = [];
  const raw: string[] = [];
  let waiters: (() => void)[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          raw.push(block);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          if (fields.data === undefined) continue;
          const data = JSON.parse(fields.data);
          expect(data.id).toBe(Number(fields.id));
          expect(data.type).toBe(fields.event);
          events.push({ id: Number(fields.id), type: fields.event!, data });
          for (const wake of waiters) wake();
          waiters = [];
        }
      }
    } catch {
      // aborted
    }
  })();

  /** The first event (after those already taken) that matches. */
  async function next(match: (event: SseEvent) => boolean, what: string, timeoutMs = 10_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} on the event stream; got ${JSON.stringify(events.map((e) => e.type))}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
  return { events, raw, next, close: () => controller.abort() };
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback that answers the given statuses in turn (then 200). */
async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a receiver does: recompute the signature over "<timestamp>.<raw body>" and compare in constant time. */
function verifySignature(secret: string, received: Received): boolean {
  const timestamp = received.headers['x-vss-timestamp'] as string;
  const signature = received.headers['x-vss-signature'] as string;
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${received.body}`).digest('hex')}`;
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Accepts a reboot, except of the host that always times out. */
const intercomDriver: IntercomDriver = {
  vendor: 'hikvision',
  reboot: async ({ host }) => {
    if (host === '192.0.2.99') throw new VssError('device_timeout', 'The intercom did not answer in time.');
  },
};

/** An ingest that fails at once, quoting its source URL (credentials and all) as ffmpeg would. */
const failingDriver = {
  name: 'failing',
  start(spec: { sourceUrl: string }, listener: { exit(reason: string): void }) {
    const timer = setTimeout(() => listener.exit(`${spec.sourceUrl}: Connection refused`), 20);
    return { pid: undefined, stop: async () => clearTimeout(timer) };
  },
};

describe.each(databaseKinds(process.env.DATABASE_URL))('events on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      intercomDrivers: { hikvision: intercomDriver },
      events: { webhooks: { pollMs: 50, retry: { initialMs: 100, maxMs: 400, maxAttempts: 5 } } },
      media: { driver: failingDriver, reconnectLimit: 2, initialBackoffMs: 20, maxBackoffMs: 40 },
    });
  }, 30_000);
  afterAll(() => server?.stop());

  it('answers 401 without a token, and 422 for a bad ?after or Last-Event-ID', async () => {
    await expectUnauthenticated(await server.request('/api/admin/v1/events', { token: false }));
    await expectValidationError(await server.request('/api/admin/v1/events?after=abc'), ['after']);
    await expectValidationError(
      await server.request('/api/admin/v1/events', { headers: { 'last-event-id': '-5' } }),
      ['after'],
    );
  });

  it('streams camera.created, and Last-Event-ID or ?after resumes after that event', async () => {
    const stream = await openEvents(server);
    try {
      const first = await createCamera(server, { name: 'First' });
      const second = await createCamera(server, { name: 'Second' });
      const created = await stream.next((e) => e.type === 'camera.created' && e.data.data.id === first.id, 'camera.created');
      expect(created.data).toEqual({
        id: created.id,
        type: 'camera.created',
        occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        data: { id: first.id, uuid: first.uuid, name: 'First' },
      });
      const later = await stream.next((e) => e.type === 'camera.created' && e.data.data.id === second.id, 'second camera');
      expect(later.id).toBeGreaterThan(created.id);
      expect(stream.raw[0]).toBe('retry: 1000');

      for (const init of [{ lastEventId: created.id }, { after: created.id }, { lastEventId: created.id, after: 0 }]) {
        const resumed = await openEvents(server, init);
        try {
          const again = await resumed.next((e) => e.type === 'camera.created', 'a replayed camera.created');
          expect(again.data.data.id, JSON.stringify(init)).toBe(second.id);
          expect(resumed.events.every((e) => e.id > created.id)).toBe(true);
        } finally {
          resumed.close();
        }
      }
    } finally {
      stream.close();
    }
  });

  it('delivers to a webhook with a signature the receiver can verify', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await expectStatus(
        await server.request('/api/admin/v1/webhooks', { body: { url: receiver.url, events: ['camera.created'] } }),
        201,
      );
      expect(hook).toEqual({
        id: expect.any(Number),
        url: receiver.url,
        events: ['camera.created'],
        created_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_/),
      });
      const camera = await createCamera(server, { name: 'Hooked' });
      await until(() => receiver.received.some((r) => JSON.parse(r.body).data.id === camera.id), 'the delivery');
      const delivery = receiver.received.find((r) => JSON.parse(r.body).data.id === camera.id)!;
      expect(verifySignature(hook.secret, delivery)).toBe(true);
      expect(verifySignature('whsec_wrong', delivery)).toBe(false);
      expect(delivery.headers['x-vss-event']).toBe('camera.created');
      expect(delivery.headers['x-vss-delivery']).toMatch(/^\d+$/);
      expect(Math.abs(Number(delivery.headers['x-vss-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'camera.created', data: { id: camera.id, name: 'Hooked' } });
      // Only the types it asked for.
      expect(receiver.received.every((r) => r.headers['x-vss-event'] === 'camera.created')).toBe(true);
      await expectStatus(await server.request(`/api/admin/v1/webhooks/${hook.id}`, { method: 'DELETE' }), 204);
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver that fails twice and delivers on the third attempt', async () => {
    const receiver = await startReceiver([500, 503]);
    try {
      const hook = await expectStatus(
        await server.request('/api/admin/v1/webhooks', { body: { url: receiver.url, events: ['intercom.restarted'] } }),
        201,
      );
      const intercom = await expectStatus(
        await server.request('/api/admin/v1/intercoms', {
          body: { name: 'Gate', vendor: 'hikvision', host: '192.0.2.40', login: 'admin', password: 'x' },
        }),
        201,
      );
      await expectStatus(await server.request(`/api/admin/v1/intercoms/${intercom.id}/restart-intercom`, { body: {} }), 204);
      await until(() => receiver.received.length >= 3, 'three attempts');
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(receiver.received).toHaveLength(3);
      const bodies = receiver.received.map((r) => JSON.parse(r.body));
      expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
      expect(bodies[2]).toMatchObject({ type: 'intercom.restarted', data: { id: intercom.id } });
      expect(receiver.received.map((r) => r.headers['x-vss-delivery'])).toEqual(Array(3).fill(receiver.received[0]!.headers['x-vss-delivery']));
      for (const attempt of receiver.received) expect(verifySignature(hook.secret, attempt)).toBe(true);
      await expectStatus(await server.request(`/api/admin/v1/webhooks/${hook.id}`, { method: 'DELETE' }), 204);
    } finally {
      await receiver.close();
    }
  });

  it('emits analytics_case.status on stop and restart, and intercom restart outcomes', async () => {
    const stream = await openEvents(server);
    try {
      const camera = await createCamera(server);
      const cases = `/api/admin/v1/cameras/${camera.id}/analytic-cases`;
      const created = await expectStatus(await server.request(cases, { body: { kind: 'motion_detection' } }), 201);
      await expectStatus(await server.request(`${cases}/${created.id}/stop/`, { body: {} }), 200);
      await expectStatus(await server.request(`${cases}/${created.id}/restart/`, { body: {} }), 200);
      const ofCase = (e: SseEvent) => e.type === 'analytics_case.status' && e.data.data.id === created.id;
      await stream.next((e) => ofCase(e) && e.data.data.to === 'PENDING', 'the restart');
      expect(stream.events.filter(ofCase).map((e) => e.data.data)).toEqual([
        { id: created.id, camera_id: camera.id, from: 'CREATED', to: 'STOPPED' },
        { id: created.id, camera_id: camera.id, from: 'STOPPED', to: 'PENDING' },
      ]);

      const failing = await expectStatus(
        await server.request('/api/admin/v1/intercoms', {
          body: { name: 'Broken', vendor: 'hikvision', host: '192.0.2.99', login: 'admin', password: 'x' },
        }),
        201,
      );
      expect((await server.request(`/api/admin/v1/intercoms/${failing.id}/restart-intercom`, { body: {} })).status).toBe(504);
      const failed = await stream.next((e) => e.type === 'intercom.restart_failed', 'intercom.restart_failed');
      expect(failed.data.data).toEqual({ id: failing.id, code: 'device_timeout' });
    } finally {
      stream.close();
    }
  });

  it('streams stream status and reconnect failures, and no event carries a URL, a password or a token', async () => {
    const stream = await openEvents(server);
    try {
      const camera = await createCamera(server, {
        onvif_credentials: { login: 'admin', password: 'onvif-hunter2', port: 80 },
      });
      const created = await expectStatus(
        await server.request(`/api/admin/v1/cameras/${camera.id}/streams`, {
          body: { type: 'high', url: 'rtsp://admin:rtsp-hunter2@127.0.0.1:9/live', uid: `leak-${kind}` },
        }),
        201,
      );
      const inactive = await stream.next(
        (e) => e.type === 'stream.status' && e.data.data.uid === created.uid && e.data.data.status === 'inactive',
        'the stream giving up',
      );
      expect(inactive.data.data.reason).toMatch(/gave up after 2/);
      const failures = stream.events.filter((e) => e.type === 'stream.reconnect_failed' && e.data.data.uid === created.uid);
      expect(failures.map((e) => e.data.data.attempts)).toEqual([1, 2]);
      expect(failures[0]!.data.data.error).toBe('[url] Connection refused');
      await expectStatus(
        await server.request('/api/admin/v1/intercoms', {
          body: { name: 'Door', vendor: 'hikvision', host: '192.0.2.41', login: 'admin', password: 'door-hunter2' },
        }),
        201,
      );
    } finally {
      stream.close();
    }

    // Everything stored so far, replayed from the start.
    const everything = await openEvents(server, { after: 0 });
    try {
      await everything.next((e) => e.type === 'stream.status' && e.data.data.status === 'inactive', 'the replay');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const text = everything.raw.join('\n');
      expect(everything.events.length).toBeGreaterThan(5);
      for (const secret of ['hunter2', 'rtsp://', server.token, 'whsec_']) expect(text).not.toContain(secret);
    } finally {
      everything.close();
    }
  });

  it('webhooks: create, list and get without the secret, delete; 404, 405 and 422', async () => {
    const base = '/api/admin/v1/webhooks';
    const hook = await expectStatus(
      await server.request(base, { body: { url: 'https://hooks.example.com/vss', secret: 'my-own-secret-1234' } }),
      201,
    );
    expect(hook).toMatchObject({ url: 'https://hooks.example.com/vss', events: null, secret: 'my-own-secret-1234' });
    const { secret: _secret, ...shown } = hook;
    expect(await expectStatus(await server.request(`${base}/${hook.id}`), 200)).toEqual(shown);
    const list = await expectStatus(await server.request(base), 200);
    expect(list).toContainEqual(shown);
    expect(JSON.stringify(list)).not.toContain('my-own-secret-1234');

    await expectValidationError(await server.request(base, { body: { url: 'ftp://example.com/x' } }), ['url']);
    await expectValidationError(await server.request(base, { body: { url: 'https://x.example', events: ['nope'] } }), [
      'events.0',
    ]);
    await expectValidationError(await server.request(base, { body: { url: 'https://x.example', secret: 'short' } }), ['secret']);

    const put = await server.request(`${base}/${hook.id}`, { method: 'PUT', body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET']);

    await expectStatus(await server.request(`${base}/${hook.id}`, { method: 'DELETE' }), 204);
    expect((await server.request(`${base}/${hook.id}`)).status).toBe(404);
    expect((await server.request(`${base}/${hook.id}`, { method: 'DELETE' })).status).toBe(404);
    await expectUnauthenticated(await server.request(base, { token: false }));
    await expectUnauthenticated(await server.request(`${base}/${hook.id}`, { method: 'DELETE', token: false }));
  });
});
