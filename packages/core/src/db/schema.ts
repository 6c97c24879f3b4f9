import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};

/** Server-wide values generated once, such as the access-token signing secret. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const apiTokens = pgTable('api_tokens', {
  id: serial('id').primaryKey(),
  client: text('client').notNull(),
  /** SHA-256 of the token; the token itself is never stored. */
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
});

export const treeElements = pgTable('tree_elements', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  key: text('key').unique(),
  parentId: integer('parent_id').references((): AnyPgColumn => treeElements.id, { onDelete: 'restrict' }),
  ...timestamps,
});

export const folders = pgTable(
  'folders',
  {
    id: serial('id').primaryKey(),
    treeElementId: integer('tree_element_id')
      .notNull()
      .references(() => treeElements.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    key: text('key'),
    ...timestamps,
  },
  (table) => [unique('folders_tree_element_key').on(table.treeElementId, table.key)],
);

export const cameras = pgTable(
  'cameras',
  {
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().unique(),
    name: text('name').notNull(),
    status: text('status').notNull().default(''),
    /** Lower-cased, so that uniqueness ignores case. */
    mac: text('mac').notNull().unique(),
    serialNumber: text('serial_number').notNull().default(''),
    groupType: text('group_type').notNull(),
    treeElementId: integer('tree_element_id')
      .notNull()
      .references(() => treeElements.id, { onDelete: 'restrict' }),
    folderId: integer('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    isUserOwner: boolean('is_user_owner').notNull().default(false),
    isNeedReplace: boolean('is_need_replace').notNull().default(false),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    service: text('service'),
    externalId: text('external_id').unique(),
    onvifLogin: text('onvif_login'),
    /** Encrypted with the server's encryption key; never returned. */
    onvifPasswordEncrypted: text('onvif_password_encrypted'),
    onvifPort: integer('onvif_port'),
    isCanManageArchiveStorageDays: boolean('is_can_manage_archive_storage_days'),
    logExtra: jsonb('log_extra'),
    ...timestamps,
  },
  (table) => [index('cameras_tree_element').on(table.treeElementId)],
);

/** Archive settings per stream type, stored at camera creation and applied when the stream is created. */
export const cameraArchiveSettings = pgTable(
  'camera_archive_settings',
  {
    cameraId: integer('camera_id')
      .notNull()
      .references(() => cameras.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    isArchiveEnabled: boolean('is_archive_enabled').notNull(),
    archiveStorageDays: integer('archive_storage_days'),
  },
  (table) => [primaryKey({ columns: [table.cameraId, table.type] })],
);

export const streams = pgTable(
  'streams',
  {
    id: serial('id').primaryKey(),
    uid: text('uid').notNull().unique(),
    cameraId: integer('camera_id')
      .notNull()
      .references(() => cameras.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    /** The source URL may carry the camera's credentials, so it is stored encrypted. */
    sourceUrlEncrypted: text('source_url_encrypted'),
    status: text('status').notNull().default('empty'),
    isArchiveEnabled: boolean('is_archive_enabled').notNull().default(false),
    archiveStorageDays: integer('archive_storage_days'),
    reconnectAttempts: integer('reconnect_attempts').notNull().default(0),
    reconnectsTotal: integer('reconnects_total').notNull().default(0),
    lastError: text('last_error'),
    lastErrorAt: timestamp('last_error_at', { withTimezone: true, mode: 'date' }),
    reconnectionResetAt: timestamp('reconnection_reset_at', { withTimezone: true, mode: 'date' }),
    /** The sequence number of the stream's newest segment; never goes back, even when segments are deleted. */
    segmentSequence: integer('segment_sequence').notNull().default(0),
    ...timestamps,
  },
  (table) => [unique('streams_camera_type').on(table.cameraId, table.type)],
);

export const analyticCases = pgTable(
  'analytic_cases',
  {
    id: serial('id').primaryKey(),
    cameraId: integer('camera_id')
      .notNull()
      .references(() => cameras.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    status: text('status').notNull().default('CREATED'),
    ...timestamps,
  },
  (table) => [index('analytic_cases_camera').on(table.cameraId)],
);

export const intercoms = pgTable('intercoms', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  vendor: text('vendor').notNull(),
  host: text('host').notNull(),
  port: integer('port').notNull(),
  login: text('login').notNull(),
  /** Encrypted with the server's encryption key; never returned. */
  passwordEncrypted: text('password_encrypted').notNull(),
  lastRestartAt: timestamp('last_restart_at', { withTimezone: true, mode: 'date' }),
  ...timestamps,
});


/** One recorded segment file of a stream; a row exists only once its file is synced to disk. */
export const segments = pgTable(
  'segments',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    streamId: integer('stream_id')
      .notNull()
      .references(() => streams.id, { onDelete: 'cascade' }),
    /** 1, 2, 3 … per stream: the HLS media sequence number and the segment's name in URLs. */
    sequence: integer('sequence').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    /** Relative to the media directory. */
    path: text('path').notNull().unique(),
    /** The first segment after a gap: players must reset their decoders here. */
    discontinuity: boolean('discontinuity').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('segments_stream_started').on(table.streamId, table.startedAt),
    unique('segments_stream_sequence').on(table.streamId, table.sequence),
  ],
);

/** A stretch of time a stream was not recorded (outage, restart), so that gaps are facts, not guesses. */
export const archiveGaps = pgTable(
  'archive_gaps',
  {
    id: serial('id').primaryKey(),
    streamId: integer('stream_id')
      .notNull()
      .references(() => streams.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }).notNull(),
    reason: text('reason').notNull(),
  },
  (table) => [index('archive_gaps_stream_started').on(table.streamId, table.startedAt)],
);

/** The outbox: every event, in order; its id is the SSE event id. Kept for seven days. */
export const events = pgTable(
  'events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('events_occurred_at').on(table.occurredAt)],
);

export const webhooks = pgTable('webhooks', {
  id: serial('id').primaryKey(),
  url: text('url').notNull(),
  /** The HMAC key, encrypted with the server's encryption key; shown only when created. */
  secretEncrypted: text('secret_encrypted').notNull(),
  /** The event types delivered; null for all of them. */
  events: text('events').array(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** One event to one webhook: attempted until delivered or out of attempts (next_attempt_at null). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: bigint('event_id', { mode: 'number' })
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
  },
  (table) => [
    index('webhook_deliveries_due').on(table.nextAttemptAt),
    index('webhook_deliveries_event').on(table.eventId),
    unique('webhook_deliveries_webhook_event').on(table.webhookId, table.eventId),
  ],
);
