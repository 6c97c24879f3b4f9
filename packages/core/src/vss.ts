import { STREAM_RESTART_RESULT } from '@vss/schema';
import { eq } from 'drizzle-orm';
import { BUILT_IN_CAMERA_PROFILES, type CameraProfile, type CoreContext } from './context';
import { AccessTokenSigner, generateSecret, SecretBox } from './crypto';
import { openDatabase } from './db/client';
import { settings } from './db/schema';
import { builtInIntercomDrivers } from './drivers/intercom';
import { createEvents, scrubUrls, type Events, type EventsOptions } from './events';
import type { IntercomDriver } from './drivers/intercom/types';
import { silentLogger, type Logger } from './logger';
import { createMediaEngine, type MediaEngine, type MediaOptions } from './media';
import { getMediaUrls } from './media/playback';
import { createJsonRpcHandler } from './rpc';
import { createAnalyticsService } from './services/analytics';
import { createCameraService } from './services/cameras';
import { createIntercomService } from './services/intercoms';
import { createStreamService } from './services/streams';
import { createTokenService } from './services/tokens';
import { createTreeService } from './services/tree';

export interface VssOptions {
  /** PostgreSQL when `url` is set; otherwise embedded PGlite in `dataDir` (or in memory). */
  database: { url?: string; dataDir?: string; inMemory?: boolean };
  /** 32 bytes; device passwords and camera URLs are encrypted with it. */
  encryptionKey: Buffer;
  /** The release of camera creation v2; v1 is retired six months later. */
  v2ReleaseDate?: Date;
  /** Extra camera profiles, added to (or overriding) the built-in ones. */
  cameraProfiles?: Record<string, CameraProfile>;
  /** Intercom drivers by vendor; the built-in ones by default. */
  intercomDrivers?: Record<string, IntercomDriver>;
  logger?: Logger;
  /**
   * Ingest, archive and playback. Off unless given: without it a stream is a record whose
   * reconnection data can be reset, and no process is started.
   */
  media?: MediaOptions;
  /** The clock, replaceable so that expiry and sunsets can be tested. */
  now?: () => Date;
  /**
   * Where viewers reach the server (`https://vss.example.com`), for the URLs of Stream.GetMediaUrls;
   * a function when it is known only later (after listening). Without it the URLs are root-relative.
   */
  publicUrl?: string | (() => string);
  /** Webhook delivery (retry schedule, timeouts) and event retention; the defaults suit production. */
  events?: EventsOptions;
}

/** Applies pending migrations and closes the database again (`vss migrate`). */
export async function migrateDatabase(database: VssOptions['database'], logger: Logger = silentLogger) {
  const opened = await openDatabase({ ...database, logger });
  await opened.close();
}

export const DEFAULT_V2_RELEASE_DATE = new Date('2026-11-21T00:00:00Z');

/** Generated on first start and kept in the database, so every server process signs alike. */
async function accessTokenSecret(db: CoreContext['db']): Promise<string> {
  await db.insert(settings).values({ key: 'access_token_secret', value: generateSecret() }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, 'access_token_secret'));
  return row!.value;
}

/** The embeddable VSS: every domain operation, with no HTTP in sight. */
export async function createVss(options: VssOptions) {
  const logger = options.logger ?? silentLogger;
  const database = await openDatabase({ ...options.database, logger });
  let media: MediaEngine | undefined;
  let events: Events | undefined;
  try {
    const ctx: CoreContext = {
      db: database.db,
      secrets: new SecretBox(options.encryptionKey),
      accessTokens: new AccessTokenSigner(await accessTokenSecret(database.db)),
      logger,
      now: options.now ?? (() => new Date()),
      cameraProfiles: { ...BUILT_IN_CAMERA_PROFILES, ...options.cameraProfiles },
      intercomDrivers: options.intercomDrivers ?? builtInIntercomDrivers(),
    };
    events = createEvents(ctx, options.events);
    const { emit } = events;
    if (options.media) media = await createMediaEngine(ctx, options.media);
    if (media) {
      // The supervisor's own events become stored ones; reasons may quote a source URL, so URLs go.
      const supervised = media.supervisor.events;
      supervised.on('status', ({ uid, status, reason }) => {
        void emit('stream.status', { uid, status, ...(reason === undefined ? {} : { reason: scrubUrls(reason) }) });
      });
      supervised.on('reconnect_failed', ({ uid, attempts, error }) => {
        void emit('stream.reconnect_failed', { uid, attempts, error: scrubUrls(error) });
      });
      supervised.on('gap', ({ uid, from, to, reason }) => {
        void emit('stream.gap', { uid, from: from.toISOString(), to: to.toISOString(), reason: scrubUrls(reason) });
      });
    }
    const tree = createTreeService(ctx);
    const streams = createStreamService(ctx, media?.supervisor);
    const vss = {
      database: { kind: database.kind },
      tokens: createTokenService(ctx),
      tree,
      cameras: createCameraService(ctx, tree, { v2ReleaseDate: options.v2ReleaseDate ?? DEFAULT_V2_RELEASE_DATE, emit }),
      streams,
      analyticCases: createAnalyticsService(ctx, emit),
      intercoms: createIntercomService(ctx, emit),
      /** The event outbox: subscribe for SSE, emit, and the webhooks events are delivered to. */
      events: { subscribe: events.subscribe, emit, prune: events.prune },
      webhooks: events.webhooks,
      /** Handles the text of a JSON-RPC request; undefined when there is nothing to answer. */
      jsonRpc: createJsonRpcHandler(
        {
          'Stream.Restart': async (params) => {
            await streams.restart(params);
            return STREAM_RESTART_RESULT;
          },
          'Stream.GetMediaUrls': (params) => {
            const { publicUrl = '' } = options;
            return getMediaUrls(ctx, params, typeof publicUrl === 'function' ? publicUrl() : publicUrl);
          },
        },
        logger,
      ),
      media,
      /** True when the database answers. */
      healthy: () => database.ping(),
      async close() {
        await media?.close();
        await events?.close();
        await database.close();
      },
    };
    await media?.start();
    return vss;
  } catch (error) {
    await media?.close();
    await events?.close();
    await database.close();
    throw error;
  }
}

export type Vss = Awaited<ReturnType<typeof createVss>>;
