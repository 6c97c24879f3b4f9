import { z } from 'zod';
import { Id, Timestamp } from './common';
import { AnalyticsCaseStatus } from './analytics';
import { StreamStatus } from './streams';

/**
 * The data of every event type. An event never carries a source URL, a password or a token:
 * reasons and errors are cleaned of URLs before they are stored.
 */
export const EVENT_DATA = {
  'camera.created': z.object({ id: z.int(), uuid: z.string(), name: z.string() }),
  'stream.status': z.object({ uid: z.string(), status: StreamStatus, reason: z.string().optional() }),
  'stream.reconnect_failed': z.object({ uid: z.string(), attempts: z.int(), error: z.string() }),
  'stream.gap': z.object({ uid: z.string(), from: Timestamp, to: Timestamp, reason: z.string() }),
  'analytics_case.status': z.object({
    id: z.int(),
    camera_id: z.int(),
    from: AnalyticsCaseStatus,
    to: AnalyticsCaseStatus,
  }),
  'intercom.restarted': z.object({ id: z.int() }),
  'intercom.restart_failed': z.object({ id: z.int(), code: z.string() }),
} as const;

export const EVENT_TYPES = Object.keys(EVENT_DATA) as (keyof typeof EVENT_DATA)[];
export type EventType = keyof typeof EVENT_DATA;
export const EventType = z.enum(EVENT_TYPES as [EventType, ...EventType[]]);
export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA)[T]>;

const eventOf = <T extends EventType>(type: T) =>
  z.object({ id: z.int().min(1), type: z.literal(type), occurred_at: Timestamp, data: EVENT_DATA[type] });

/**
 * One event as the SSE stream's `data:` and a webhook's body carry it; `id` grows with every
 * event and is the SSE event id (`Last-Event-ID`).
 */
export const VssEvent = z.discriminatedUnion('type', [
  eventOf('camera.created'),
  eventOf('stream.status'),
  eventOf('stream.reconnect_failed'),
  eventOf('stream.gap'),
  eventOf('analytics_case.status'),
  eventOf('intercom.restarted'),
  eventOf('intercom.restart_failed'),
]);
export type VssEvent = z.infer<typeof VssEvent>;
/** The event of one type. */
export type VssEventOf<T extends EventType> = Extract<VssEvent, { type: T }>;

/** Where the SSE stream starts: after this event id (the `Last-Event-ID` header wins when both are sent). */
export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

export const WebhookCreate = z.object({
  url: z.url({ protocol: /^https?$/, error: 'The url field must be an http or https URL.' }).max(2048),
  /** The event types to deliver; every type (also ones added later) when left out. */
  events: z.array(EventType).min(1).max(EVENT_TYPES.length).optional(),
  /** The HMAC key of the signatures; generated when left out, and shown only in the create response. */
  secret: z.string().min(16).max(255).optional(),
});
export type WebhookCreate = z.input<typeof WebhookCreate>;

/** A webhook as the API shows it: the secret is never shown again after creation. */
export const Webhook = z.object({
  id: Id,
  url: z.string(),
  /** null: every event type, including ones added later. */
  events: z.array(EventType).nullable(),
  created_at: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

export const WebhookCreated = Webhook.extend({ secret: z.string() });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

/** Headers of a webhook delivery. */
export const WEBHOOK_HEADERS = {
  event: 'X-VSS-Event',
  delivery: 'X-VSS-Delivery',
  timestamp: 'X-VSS-Timestamp',
  signature: 'X-VSS-Signature',
} as const;
