import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Database } from '../db/client';
import { archiveGaps, segments, streams } from '../db/schema';

export type SegmentRow = typeof segments.$inferSelect;

const RUNS_DIR = '.runs';

async function fsyncPath(path: string, flags: 'r' | 'r+' = 'r') {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The archive on disk and its index. A segment is written by an ingest into a run directory,
 * synced, moved into the stream's directory and only then given its row, so a row always has a
 * whole file behind it; start-up reconciliation removes whatever a crash left half done.
 */
export function createSegmentStore(db: Database, mediaRoot: string) {
  const root = resolve(mediaRoot);
  const streamDir = (uid: string) => join(root, uid);

  /** Paths handed to readers right now: retention leaves them alone. */
  const inUse = new Map<string, number>();

  function absolute(path: string) {
    const full = resolve(root, path);
    if (!full.startsWith(root + sep)) throw new Error('A segment path left the media directory.');
    return full;
  }

  return {
    root,
    absolute,

    /** A fresh, empty directory for one ingest run of a stream. */
    async createRunDir(uid: string, runId: string): Promise<string> {
      const dir = join(streamDir(uid), RUNS_DIR, runId);
      await mkdir(dir, { recursive: true });
      return dir;
    },

    async removeRunDir(uid: string, runId: string) {
      await rm(join(streamDir(uid), RUNS_DIR, runId), { recursive: true, force: true });
    },

    /**
     * Makes a finished segment file durable and indexes it; returns its row. `discontinuity` marks
     * the first segment of a new ingest run (its timestamps start afresh); `gap` records the time
     * nothing was recorded before it, if any.
     */
    async commit(
      stream: { id: number; uid: string },
      file: string,
      startedAt: Date,
      durationMs: number,
      { gap, discontinuity }: { gap?: { from: Date; reason: string } | undefined; discontinuity: boolean },
    ): Promise<SegmentRow> {
      await fsyncPath(file);
      const name = `${startedAt.getTime()}.ts`;
      const target = join(streamDir(stream.uid), name);
      await rename(file, target);
      await fsyncPath(streamDir(stream.uid));
      const { size } = await stat(target);
      return db.transaction(async (tx) => {
        const [numbered] = await tx
          .update(streams)
          .set({ segmentSequence: sql`${streams.segmentSequence} + 1` })
          .where(eq(streams.id, stream.id))
          .returning({ sequence: streams.segmentSequence });
        if (gap) {
          await tx.insert(archiveGaps).values({ streamId: stream.id, startedAt: gap.from, endedAt: startedAt, reason: gap.reason });
        }
        const [row] = await tx
          .insert(segments)
          .values({
            streamId: stream.id,
            sequence: numbered!.sequence,
            startedAt,
            durationMs,
            sizeBytes: size,
            path: relative(root, target),
            discontinuity: discontinuity || gap !== undefined,
          })
          .returning();
        return row!;
      });
    },

    async latest(streamId: number, limit: number): Promise<SegmentRow[]> {
      const rows = await db
        .select()
        .from(segments)
        .where(eq(segments.streamId, streamId))
        .orderBy(desc(segments.startedAt))
        .limit(limit);
      return rows.reverse();
    },

    /** Marks a file as being read until the returned function is called. */
    hold(path: string): () => void {
      inUse.set(path, (inUse.get(path) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const count = (inUse.get(path) ?? 1) - 1;
        if (count <= 0) inUse.delete(path);
        else inUse.set(path, count);
      };
    },

    /** Deletes the given segments, files first, skipping any being read. Returns how many went. */
    async remove(rows: SegmentRow[]): Promise<number> {
      const removable = rows.filter((row) => !inUse.has(row.path));
      for (const row of removable) await rm(absolute(row.path), { force: true });
      if (removable.length > 0) {
        await db.delete(segments).where(inArray(segments.id, removable.map((row) => row.id)));
      }
      return removable.length;
    },

    /** Segments of a stream older than a time, oldest first. */
    olderThan(streamId: number, before: Date, limit: number) {
      return db
        .select()
        .from(segments)
        .where(and(eq(segments.streamId, streamId), lt(segments.startedAt, before)))
        .orderBy(asc(segments.startedAt))
        .limit(limit);
    },

    /** The oldest segments of every stream, for freeing disk space. */
    oldest(limit: number) {
      return db.select().from(segments).orderBy(asc(segments.startedAt)).limit(limit);
    },

    /**
     * After a crash: run directories hold at most the segments being written, which are dropped;
     * rows whose file is gone are deleted; files no row knows are deleted. Returns what it removed.
     */
    async reconcile(): Promise<{ rows: number; files: number; runs: number }> {
      await mkdir(root, { recursive: true });
      const known = await db.select({ id: streams.id, uid: streams.uid }).from(streams);
      const removed = { rows: 0, files: 0, runs: 0 };
      const dirs = await readdir(root, { withFileTypes: true });
      const knownUids = new Set(known.map((stream) => stream.uid));
      for (const dir of dirs) {
        if (dir.isDirectory() && !knownUids.has(dir.name)) {
          await rm(join(root, dir.name), { recursive: true, force: true });
          removed.runs += 1;
        }
      }
      for (const stream of known) {
        const dir = streamDir(stream.uid);
        await rm(join(dir, RUNS_DIR), { recursive: true, force: true });
        const files = new Set(
          (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.ts')).map((name) => join(dir, name)),
        );
        const rows = await db.select({ id: segments.id, path: segments.path }).from(segments).where(eq(segments.streamId, stream.id));
        const orphanRows = rows.filter((row) => !files.has(absolute(row.path)));
        if (orphanRows.length > 0) {
          await db.delete(segments).where(inArray(segments.id, orphanRows.map((row) => row.id)));
          removed.rows += orphanRows.length;
        }
        const indexed = new Set(rows.map((row) => absolute(row.path)));
        for (const file of files) {
          if (!indexed.has(file)) {
            await rm(file, { force: true });
            removed.files += 1;
          }
        }
      }
      return removed;
    },
  };
}

export type SegmentStore = ReturnType<typeof createSegmentStore>;
