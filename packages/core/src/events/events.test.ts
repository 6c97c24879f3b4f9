import type { VssEvent } from '@vss/schema';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreContext } from '../context';
import { AccessTokenSigner, SecretBox } from '../crypto';
import { openDatabase, type OpenedDatabase } from '../db/client';
import { events as eventsTable, webhookDeliveries } from '../db/schema';
import { silentLogger } from '../logger';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../testing';
import { createEvents, retryDelay, scrubUrls, signWebhook, type Events } from '.';

describe('signWebhook', () => {
  it('is sha256= and the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const body = '{"id":1,"type":"camera.created"}';
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    expect(signWebhook('whsec_test', 1700000000, body)).toBe(`sha256=${expected}`);
    expect(signWebhook('whsec_test', '1700000000', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signWebhook('other', 1700000000, body)).not.toBe(`sha256=${expected}`);
  });
});

describe('retryDelay', () => {
  it('doubles from 1 s, caps at 10 min and gives up after 8 attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelay(attempts))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000,
    ]);
    expect(retryDelay(8)).toBeUndefined();
    expect(retryDelay(12, { initialMs: 1_000, maxMs: 600_000, maxAttempts: 20 })).toBe(600_000);
    expect(retryDelay(2, { initialMs: 10, maxMs: 15, maxAttempts: 3 })).toBe(15);
    expect(retryDelay(3, { initialMs: 10, maxMs: 15, maxAttempts: 3 })).toBeUndefined();
  });
});

describe('scrubUrls', () => {
  it('takes every URL out of a reason', () => {
    expect(scrubUrls('rtsp://admin:secret@192.0.2.1/live: Connection refused')).toBe('[url] Connection refused');
    expect(scrubUrls('could not open RTSP://a:b@h/x (timeout)')).toBe('could not open [url] (timeout)');
    expect(scrubUrls('no url here')).toBe('no url here');
  });
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(25);
  }
}

describe.each(databaseKinds(process.env.DATABASE_URL))('events on %s', (kind) => {
  let database: TestDatabase;
  let opened: OpenedDatabase;
  let ctx: CoreContext;
  let events: Events;
  let clock: Date | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(kind, { databaseUrl: process.env.DATABASE_URL });
    opened = await openDatabase({ ...database, logger: silentLogger });
    ctx = {
      db: opened.db,
      secrets: new SecretBox(randomBytes(32)),
      accessTokens: new AccessTokenSigner('test'),
      logger: silentLogger,
      now: () => clock ?? new Date(),
      cameraProfiles: {},
      intercomDrivers: {},
    };
    events = createEvents(ctx, { webhooks: { pollMs: 50, retry: { initialMs: 50, maxMs: 200, maxAttempts: 4 } } });
  });
  afterAll(async () => {
    await events?.close();
    await opened?.close();
    await database?.cleanup();
  });

  it('replays the outbox after an id and then goes live, with no gap and no duplicate', async () => {
    for (let i = 0; i < 5; i++) await events.emit('intercom.restarted', { id: i + 1 });
    const all = await ctx.db.select({ id: eventsTable.id }).from(eventsTable);
    const start = all.at(-5)!.id;
    const seen: VssEvent[] = [];
    // Emits race the replay: some land before the outbox is read, some during, some after.
    const racing = Promise.all(Array.from({ length: 20 }, (_, i) => events.emit('intercom.restarted', { id: 100 + i })));
    const subscription = events.subscribe(start, (event) => seen.push(event));
    await subscription.ready;
    await racing;
    for (let i = 0; i < 5; i++) await events.emit('intercom.restart_failed', { id: i + 1, code: 'device_timeout' });
    subscription.close();
    await events.emit('intercom.restarted', { id: 999 });

    const ids = seen.map((event) => event.id);
    expect(ids).toEqual(Array.from({ length: 29 }, (_, i) => start + 1 + i));
    expect(seen.at(-1)).toMatchObject({ type: 'intercom.restart_failed', data: { id: 5, code: 'device_timeout' } });
    expect(seen[0]!.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('without an id, delivers only events from now on', async () => {
    await events.emit('intercom.restarted', { id: 1 });
    const seen: VssEvent[] = [];
    const subscription = events.subscribe(undefined, (event) => seen.push(event));
    await subscription.ready;
    await events.emit('intercom.restarted', { id: 2 });
    subscription.close();
    expect(seen.map((event) => event.data)).toEqual([{ id: 2 }]);
  });

  it('delivers signed webhooks, retries a failing receiver and cascades deletes', async () => {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    let failures = 2;
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.statusCode = failures-- > 0 ? 503 : 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const hook = await events.webhooks.create({ url: `http://127.0.0.1:${port}/hook`, events: ['camera.created'] });
      expect(hook.secret).toMatch(/^whsec_/);
      await events.emit('intercom.restarted', { id: 7 }); // not subscribed to
      await events.emit('camera.created', { id: 3, uuid: 'u', name: 'Door' });
      await until(() => received.length >= 3, 'three attempts');
      const [first, , third] = received;
      expect(third!.body).toBe(first!.body);
      const body = JSON.parse(third!.body);
      expect(body).toMatchObject({ type: 'camera.created', data: { id: 3, uuid: 'u', name: 'Door' } });
      expect(third!.headers['x-vss-event']).toBe('camera.created');
      const timestamp = third!.headers['x-vss-timestamp'] as string;
      expect(third!.headers['x-vss-signature']).toBe(signWebhook(hook.secret, timestamp, third!.body));

      const [delivery] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, body.id));
      await until(async () => {
        const [row] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id));
        return row?.deliveredAt !== null;
      }, 'the delivery to be marked delivered');
      const [done] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id));
      expect(done).toMatchObject({ attempts: 3, lastError: null, nextAttemptAt: null });
      expect(String(third!.headers['x-vss-delivery'])).toBe(String(delivery!.id));

      // Deleting the webhook deletes its deliveries.
      await events.webhooks.delete(hook.id);
      expect(await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id))).toEqual([]);
      await expect(events.webhooks.get(hook.id)).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await new Promise<void>((resolve) => {
        receiver.close(() => resolve());
        receiver.closeAllConnections();
      });
    }
  });

  it('gives a delivery up after the last attempt, and pruning old events deletes their deliveries', async () => {
    const hook = await events.webhooks.create({ url: 'http://127.0.0.1:1/closed', secret: 'a-secret-of-16-chars' });
    expect(hook).toMatchObject({ events: null, secret: 'a-secret-of-16-chars' });
    expect(await events.webhooks.list()).toContainEqual({ id: hook.id, url: hook.url, events: null, created_at: hook.created_at });
    await events.emit('intercom.restarted', { id: 8 });
    const deliveries = () => ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    await until(async () => (await deliveries())[0]?.attempts === 4, 'four attempts', 15_000);
    const [given] = await deliveries();
    expect(given).toMatchObject({ deliveredAt: null, nextAttemptAt: null });
    expect(given!.lastError).not.toContain('127.0.0.1');

    clock = new Date(Date.now() + 8 * 24 * 3600 * 1000);
    try {
      expect(await events.prune()).toBeGreaterThan(0);
    } finally {
      clock = undefined;
    }
    expect(await deliveries()).toEqual([]);
    expect(await ctx.db.select().from(eventsTable)).toEqual([]);
    await events.webhooks.delete(hook.id);
  });

  it('refuses a webhook URL that is not http or https', async () => {
    await expect(events.webhooks.create({ url: 'ftp://192.0.2.1/x' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(events.webhooks.create({ url: 'http://x', events: ['no.such'] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});
