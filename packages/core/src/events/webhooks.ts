import { WebhookCreate, type EventType, type Webhook, type WebhookCreated } from '@vss/schema';
import { asc, eq } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { generateSecret } from '../crypto';
import { webhooks } from '../db/schema';
import { notFound, parseInput } from '../errors';
import { iso } from '../services/serialize';

type WebhookRow = typeof webhooks.$inferSelect;

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: (row.events as EventType[] | null) ?? null,
  created_at: iso(row.createdAt),
});

/** Webhooks: where events are POSTed. The secret is stored encrypted and shown only once. */
export function createWebhookService(ctx: CoreContext) {
  const { db } = ctx;

  async function requireWebhook(id: number) {
    const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
    if (!row) throw notFound(`Webhook ${id}`);
    return row;
  }

  return {
    async create(input: unknown): Promise<WebhookCreated> {
      const { url, events, secret = `whsec_${generateSecret()}` } = parseInput(WebhookCreate, input);
      const [row] = await db
        .insert(webhooks)
        .values({ url, events: events ? [...new Set(events)] : null, secretEncrypted: ctx.secrets.seal(secret) })
        .returning();
      ctx.logger.info('webhook created', { id: row!.id });
      return { ...toWebhook(row!), secret };
    },

    async list(): Promise<Webhook[]> {
      return (await db.select().from(webhooks).orderBy(asc(webhooks.id))).map(toWebhook);
    },

    async get(id: number): Promise<Webhook> {
      return toWebhook(await requireWebhook(id));
    },

    /** Deletes the webhook; its pending deliveries go with it. */
    async delete(id: number): Promise<void> {
      const deleted = await db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id });
      if (deleted.length === 0) throw notFound(`Webhook ${id}`);
      ctx.logger.info('webhook deleted', { id });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
