import { statfs } from 'node:fs/promises';
import type { CoreContext } from '../context';
import { streams } from '../db/schema';
import type { SegmentStore } from './segment-store';

export interface RetentionOptions {
  /** Segments kept for live viewing of a stream whose archive is off. */
  liveSegments: number;
  /** Free space under which the oldest archive goes first, in bytes. */
  minFreeBytes: number;
}

const DAY_MS = 86_400_000;
const BATCH = 200;

/** Free bytes on the file system holding the media directory. */
export async function freeBytes(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

/**
 * One sweep of retention: a stream with its archive on keeps `archive_storage_days`; one with it
 * off keeps only its live window; and while free space is under the floor, the oldest segments
 * of any stream go first. Segments being read are skipped (the store refuses them); segments
 * being written are not in the index yet, so they cannot be picked.
 */
export async function sweepRetention(
  ctx: CoreContext,
  store: SegmentStore,
  options: RetentionOptions,
  diskFree: (path: string) => Promise<number> = freeBytes,
): Promise<{ expired: number; live: number; pressure: number }> {
  const removed = { expired: 0, live: 0, pressure: 0 };
  const rows = await ctx.db
    .select({
      id: streams.id,
      archive: streams.isArchiveEnabled,
      days: streams.archiveStorageDays,
    })
    .from(streams);
  const now = ctx.now().getTime();
  for (const stream of rows) {
    if (stream.archive && stream.days) {
      const cutoff = new Date(now - stream.days * DAY_MS);
      for (let batch = await store.olderThan(stream.id, cutoff, BATCH); batch.length > 0; ) {
        const count = await store.remove(batch);
        removed.expired += count;
        if (count < batch.length) break;
        batch = await store.olderThan(stream.id, cutoff, BATCH);
      }
    } else {
      const keep = await store.latest(stream.id, options.liveSegments);
      const oldestKept = keep[0]?.startedAt;
      if (oldestKept) {
        const stale = await store.olderThan(stream.id, oldestKept, 10_000);
        removed.live += await store.remove(stale);
      }
    }
  }
  while ((await diskFree(store.root)) < options.minFreeBytes) {
    const oldest = await store.oldest(BATCH);
    const count = oldest.length > 0 ? await store.remove(oldest) : 0;
    if (count === 0) {
      ctx.logger.warn('disk space is under the floor and no segment can be freed', { root: store.root });
      break;
    }
    removed.pressure += count;
  }
  if (removed.expired + removed.live + removed.pressure > 0) ctx.logger.info('retention sweep', removed);
  return removed;
}

