import type { Webhook, WebhookCreate, WebhookCreated } from '@vss/schema';
import type { Transport } from '../transport';

export function createWebhooks(transport: Transport) {
  return {
    /**
     * Registers a webhook. The answer carries its `secret` (the one given, or a generated one):
     * keep it to verify `X-VSS-Signature`, as it is never shown again.
     */
    async create(body: WebhookCreate): Promise<WebhookCreated> {
      return (await transport.call('createWebhook', { body })).data;
    },

    async list(): Promise<Webhook[]> {
      return (await transport.call('listWebhooks', {})).data;
    },

    async get(id: number): Promise<Webhook> {
      return (await transport.call('getWebhook', { params: { webhook: id } })).data;
    },

    /** Deletes the webhook and its pending deliveries. */
    async delete(id: number): Promise<void> {
      await transport.call('deleteWebhook', { params: { webhook: id } });
    },
  };
}
