import { join } from 'node:path';
import type { CoreContext } from '../context';
import { resolveMediaBinaries, type MediaBinaries } from './binaries';
import type { StreamDriver } from './driver';
import { ffmpegDriver } from './ffmpeg-driver';
import { createPlayback } from './playback';
import { sweepRetention } from './retention';
import { createSegmentStore } from './segment-store';
import { createSupervisor } from './supervisor';

export interface MediaOptions {
  /** Segments live under `<dataDir>/media/<stream uid>/`. */
  dataDir: string;
  /** Target segment length in seconds (default 2). */
  segmentSeconds?: number;
  /** Segments kept for a stream whose archive is off (default 6). */
  liveSegments?: number;
  /** Consecutive failures after which a stream turns inactive (default 500). */
  reconnectLimit?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** An ingest silent for this long is restarted (default: five segment lengths, at least 10 s). */
  watchdogMs?: number;
  /** How often retention runs (default 60 s). */
  retentionIntervalMs?: number;
  /** Free space floor of the media file system, in bytes (default 1 GiB). */
  minFreeBytes?: number;
  /** Socket timeout of an ingest, in seconds (default 5). */
  socketTimeoutSeconds?: number;
  ffmpegPath?: string;
  ffprobePath?: string;
  /** Replaces the ffmpeg driver (tests of the supervisor, other ingest engines). */
  driver?: StreamDriver;
}

export async function createMediaEngine(ctx: CoreContext, options: MediaOptions) {
  const segmentSeconds = options.segmentSeconds ?? 2;
  const binaries: MediaBinaries = await resolveMediaBinaries(options);
  ctx.logger.info('media binaries', {
    ffmpeg: binaries.ffmpeg.path,
    ffmpeg_version: binaries.ffmpeg.version,
    ffmpeg_source: binaries.ffmpeg.source,
    ffprobe: binaries.ffprobe.path,
  });
  const store = createSegmentStore(ctx.db, join(options.dataDir, 'media'));
  const driver =
    options.driver ??
    ffmpegDriver({ ffmpeg: binaries.ffmpeg, socketTimeoutSeconds: options.socketTimeoutSeconds ?? 5, logger: ctx.logger });
  const supervisor = createSupervisor(ctx, store, driver, {
    segmentSeconds,
    reconnectLimit: options.reconnectLimit ?? 500,
    initialBackoffMs: options.initialBackoffMs ?? 1_000,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
    watchdogMs: options.watchdogMs ?? Math.max(10_000, segmentSeconds * 5_000),
  });
  const retention = {
    liveSegments: options.liveSegments ?? 6,
    minFreeBytes: options.minFreeBytes ?? 1024 ** 3,
  };
  let sweeper: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();

  const sweep = () => {
    sweeping = sweeping
      .then(() => sweepRetention(ctx, store, retention))
      .catch((error: unknown) => ctx.logger.error('retention sweep failed', { error }));
    return sweeping;
  };

  return {
    binaries,
    store,
    supervisor,
    playback: createPlayback(ctx, store, binaries.ffmpeg, { liveSegments: retention.liveSegments }),
    /** Runs one retention sweep now (it also runs on its own interval). */
    sweep,

    /** Reconciles the archive with its index, then starts every stream. */
    async start() {
      const removed = await store.reconcile();
      const crashed = removed.rows + removed.files + removed.runs > 0;
      ctx.logger[crashed ? 'warn' : 'info']('archive reconciled', { removed_rows: removed.rows, removed_files: removed.files, removed_dirs: removed.runs });
      await supervisor.start();
      sweeper = setInterval(() => void sweep(), options.retentionIntervalMs ?? 60_000);
      sweeper.unref();
    },

    async close() {
      clearInterval(sweeper);
      await supervisor.close();
      await sweeping;
    },
  };
}

export type MediaEngine = Awaited<ReturnType<typeof createMediaEngine>>;
