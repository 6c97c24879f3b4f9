import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import {
  operations,
  StreamGetMediaUrlsParams,
  type ArchiveRanges,
  type Operation,
  type StreamGetMediaUrlsResult,
} from '@vss/schema';
import { and, asc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { segments, streams } from '../db/schema';
import { notFound, parseInput, VssError } from '../errors';
import type { MediaBinary } from './binaries';
import type { SegmentRow, SegmentStore } from './segment-store';

const run = promisify(execFile);

/** A jump between segments longer than this is a gap players must be told about. */
const DISCONTINUITY_GAP_MS = 500;
/**
 * How far before a range a segment overlapping it may start. Segments are cut on keyframes near
 * the target length (at most 10 s), so this is ample; it keeps the query on the index.
 */
const LOOKBACK_MS = 10 * 60_000;
const PREVIEW_TIMEOUT_MS = 10_000;
/** stderr kept to explain a failed export. */
const STDERR_TAIL = 2048;
/** A segment's URI relative to the playlists, which are served from the directory above it. */
const SEGMENT_URI = posix.relative(posix.dirname(operations.mediaLive.path), operations.mediaSegment.path);

export interface PlaybackOptions {
  /** Segments kept for a stream whose archive is off: the live window must stay inside them. */
  liveSegments: number;
}

/** An open segment file, protected from retention until release() is called. */
export interface SegmentFile {
  path: string;
  size: number;
  release(): void;
}

const isMissingFile = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/**
 * Playback over the archive: HLS playlists, segment files, MP4 exports, previews and the archive's
 * continuous stretches. Knows nothing of HTTP beyond the relative URIs of its playlists.
 */
export function createPlayback(
  ctx: Pick<CoreContext, 'db' | 'logger'>,
  store: SegmentStore,
  ffmpeg: MediaBinary,
  options: PlaybackOptions,
) {
  const { db, logger } = ctx;
  // HLS asks that a segment stays available for a playlist's duration after it leaves the playlist;
  // retention keeps `liveSegments` of an archive-off stream, so the live window is half of them.
  const liveWindow = Math.max(3, Math.floor(options.liveSegments / 2));
  /** The newest preview of each stream, by stream id; a new segment replaces it. */
  const previews = new Map<number, { segmentId: number; jpeg: Promise<Buffer> }>();

  async function streamId(uid: string): Promise<number> {
    const [row] = await db.select({ id: streams.id }).from(streams).where(eq(streams.uid, uid));
    if (!row) throw notFound(`Stream ${uid}`);
    return row.id;
  }

  /** The segments overlapping [from, from + duration), oldest first; 404 when there are none. */
  async function rangeRows(uid: string, from: number, duration: number): Promise<SegmentRow[]> {
    const id = await streamId(uid);
    const start = from * 1000;
    const end = start + duration * 1000;
    const candidates = await db
      .select()
      .from(segments)
      .where(
        and(
          eq(segments.streamId, id),
          lt(segments.startedAt, new Date(end)),
          gt(segments.startedAt, new Date(start - LOOKBACK_MS)),
        ),
      )
      .orderBy(asc(segments.startedAt));
    const rows = candidates.filter((row) => row.startedAt.getTime() + row.durationMs > start);
    if (rows.length === 0) {
      throw new VssError('not_found', `Stream ${uid} has no recording between ${from} and ${from + duration}.`);
    }
    return rows;
  }

  return {
    /** The live HLS playlist: the newest segments. `query` is appended to every segment URI (the token). */
    async livePlaylist(uid: string, query: string): Promise<string> {
      const rows = await store.latest(await streamId(uid), liveWindow);
      if (rows.length === 0) throw new VssError('not_found', `Stream ${uid} has no video yet.`);
      return renderPlaylist(rows, { vod: false, query });
    },

    /** A VOD playlist of the segments overlapping [from, from + duration), from in Unix seconds. */
    async archivePlaylist(uid: string, from: number, duration: number, query: string): Promise<string> {
      return renderPlaylist(await rangeRows(uid, from, duration), { vod: true, query });
    },

    /**
     * A segment file of this stream. Its path comes from the index and is resolved inside the media
     * directory by the store; a segment of another stream is as unknown as a missing one.
     */
    async openSegment(uid: string, sequence: number): Promise<SegmentFile> {
      // Sequence numbers are 32-bit in the index; a larger one names nothing.
      if (!Number.isInteger(sequence) || sequence < 1 || sequence > 2_147_483_647) {
        throw notFound(`Segment ${sequence} of stream ${uid}`);
      }
      const [row] = await db
        .select({ path: segments.path })
        .from(segments)
        .innerJoin(streams, eq(streams.id, segments.streamId))
        .where(and(eq(segments.sequence, sequence), eq(streams.uid, uid)));
      if (!row) throw notFound(`Segment ${sequence} of stream ${uid}`);
      const release = store.hold(row.path);
      try {
        const path = store.absolute(row.path);
        const { size } = await stat(path);
        return { path, size, release };
      } catch (error) {
        release();
        // Retention may have deleted it between the lookup and the hold.
        if (isMissingFile(error)) throw notFound(`Segment ${sequence} of stream ${uid}`);
        throw error;
      }
    },

    /**
     * The recording of [from, from + duration) as a fragmented MP4, made as it is read by one ffmpeg
     * fed the segment files back to back (MPEG-TS concatenates byte-wise). Every segment is held
     * until it has been fed; destroying the stream (the client went away) kills ffmpeg. The MP4
     * starts and ends on segment boundaries; across an interruption ffmpeg splices the timestamps
     * of the two runs, so the gap is not kept as time.
     */
    async exportMp4(uid: string, from: number, duration: number): Promise<Readable> {
      const rows = await rangeRows(uid, from, duration);
      const releases = rows.map((row) => store.hold(row.path));
      const releaseAll = () => releases.forEach((release) => release());
      const child = spawn(
        ffmpeg.path,
        [
          '-hide_banner', '-loglevel', 'error', '-f', 'mpegts', '-i', 'pipe:0',
          // The archive is video only (see the ingest driver).
          '-map', '0:v', '-c', 'copy', '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', 'pipe:1',
        ],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const output = new PassThrough();
      // Should ffmpeg fail before the caller reads, the error waits in `output.errored` for the
      // reader instead of crashing the process as an unhandled 'error' event.
      output.on('error', () => {});
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr = (stderr + text).slice(-STDERR_TAIL);
      });
      // ffmpeg closing its input early (killed, or failed) is reported by its exit, not here.
      child.stdin.on('error', () => {});
      child.stdout.pipe(output, { end: false });
      child.on('error', (error) => output.destroy(error));
      child.on('close', (code, signal) => {
        releaseAll();
        if (code === 0) output.end();
        else output.destroy(new Error(`ffmpeg export of ${uid} ended with ${signal ?? `code ${code}`}: ${stderr.trim()}`));
      });
      output.on('close', () => {
        releaseAll();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });

      void (async () => {
        for (const [index, row] of rows.entries()) {
          try {
            await pipeline(createReadStream(store.absolute(row.path)), child.stdin, { end: false });
          } catch (error) {
            // A file retention took before it was held is skipped; anything else ends the input.
            if (!isMissingFile(error)) {
              child.stdin.destroy();
              return;
            }
          }
          releases[index]!();
        }
        child.stdin.end();
      })();
      return output;
    },

    /** A JPEG of the first frame (a keyframe) of the newest segment; made once per segment. */
    async preview(uid: string): Promise<Buffer> {
      const id = await streamId(uid);
      const [latest] = await store.latest(id, 1);
      if (!latest) throw new VssError('not_found', `Stream ${uid} has no video yet.`);
      const cached = previews.get(id);
      if (cached?.segmentId === latest.id) return cached.jpeg;
      const jpeg = (async () => {
        const release = store.hold(latest.path);
        try {
          const { stdout } = await run(
            ffmpeg.path,
            [
              '-hide_banner', '-loglevel', 'error', '-i', store.absolute(latest.path),
              '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', '-q:v', '3', 'pipe:1',
            ],
            { encoding: 'buffer', timeout: PREVIEW_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 },
          );
          if (stdout.length === 0) throw new Error(`ffmpeg made no preview of segment ${latest.id}.`);
          return stdout;
        } finally {
          release();
        }
      })();
      previews.set(id, { segmentId: latest.id, jpeg });
      jpeg.catch((error: unknown) => {
        if (previews.get(id)?.jpeg === jpeg) previews.delete(id);
        logger.warn('preview failed', { uid, segment: latest.id, error });
      });
      return jpeg;
    },

    /**
     * The stretches of continuous recording, oldest first: consecutive segments at most a second
     * apart are one stretch, unless the later one starts after an interruption (discontinuity).
     */
    async archiveRanges(uid: string): Promise<ArchiveRanges> {
      const id = await streamId(uid);
      const ends = sql`${segments.startedAt} + ${segments.durationMs} * interval '1 millisecond'`;
      const marked = db
        .select({
          startedAt: segments.startedAt,
          endsAt: sql<Date>`${ends}`.as('ends_at'),
          breaks: sql<number>`case when ${segments.discontinuity}
            or ${segments.startedAt} > lag(${ends}) over (order by ${segments.startedAt}) + interval '1 second'
            then 1 else 0 end`.as('breaks'),
        })
        .from(segments)
        .where(eq(segments.streamId, id))
        .as('marked');
      const numbered = db
        .select({
          startedAt: marked.startedAt,
          endsAt: marked.endsAt,
          run: sql<number>`sum(${marked.breaks}) over (order by ${marked.startedAt})`.as('run'),
        })
        .from(marked)
        .as('numbered');
      const rows = await db
        .select({
          from: sql<number>`floor(extract(epoch from min(${numbered.startedAt})))::float8`,
          to: sql<number>`ceil(extract(epoch from max(${numbered.endsAt})))::float8`,
        })
        .from(numbered)
        .groupBy(numbered.run)
        .orderBy(sql`min(${numbered.startedAt})`);
      return { data: rows.map((row) => ({ from: Number(row.from), to: Number(row.to) })) };
    },
  };
}

export type Playback = ReturnType<typeof createPlayback>;

/**
 * An HLS playlist of consecutive segment rows. Segment URIs are relative to the playlist
 * (`segments/<sequence>.ts`, numbered per stream), so it serves whatever address it was fetched from.
 */
function renderPlaylist(rows: SegmentRow[], options: { vod: boolean; query: string }): string {
  const longest = Math.max(...rows.map((row) => row.durationMs));
  const suffix = options.query ? `?${options.query}` : '';
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(longest / 1000))}`];
  if (options.vod) lines.push('#EXT-X-PLAYLIST-TYPE:VOD');
  lines.push(`#EXT-X-MEDIA-SEQUENCE:${options.vod ? 0 : rows[0]!.sequence}`);
  let previous: SegmentRow | undefined;
  for (const row of rows) {
    const gap = previous ? row.startedAt.getTime() - (previous.startedAt.getTime() + previous.durationMs) : 0;
    const discontinuity = row.discontinuity || gap > DISCONTINUITY_GAP_MS;
    if (discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    // The wall clock of the first segment and of each one after a break; the others follow on.
    if (!previous || discontinuity) lines.push(`#EXT-X-PROGRAM-DATE-TIME:${row.startedAt.toISOString()}`);
    lines.push(`#EXTINF:${(row.durationMs / 1000).toFixed(3)},`, `${SEGMENT_URI.replace('{segment}', String(row.sequence))}${suffix}`);
    previous = row;
  }
  if (options.vod) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** The path of a stream's media operation, e.g. `/api/v1/media/cam-high/live.m3u8`. */
const streamPath = (operation: Operation, uid: string) => operation.path.replace('{uid}', encodeURIComponent(uid));

/**
 * Stream.GetMediaUrls: for each stream (all must exist, or none is answered) a fresh access token
 * and the absolute URLs of its live playlist, archive playlist and export (templates with `{from}`
 * and `{duration}`), preview and player.
 */
export async function getMediaUrls(
  ctx: Pick<CoreContext, 'db' | 'accessTokens' | 'now'>,
  input: unknown,
  publicUrl: string,
): Promise<StreamGetMediaUrlsResult> {
  const { uids, user, ttl } = parseInput(StreamGetMediaUrlsParams, input);
  const unique = [...new Set(uids)];
  const rows = await ctx.db.select({ uid: streams.uid }).from(streams).where(inArray(streams.uid, unique));
  const known = new Set(rows.map((row) => row.uid));
  const unknown = unique.filter((uid) => !known.has(uid));
  if (unknown.length > 0) {
    throw new VssError('not_found', 'Unknown stream uids: no URLs were made.', { data: { unknown_uids: unknown } });
  }
  const exp = ttl === 0 ? 0 : Math.floor(ctx.now().getTime() / 1000) + ttl;
  const range = 'from={from}&duration={duration}&';
  return Object.fromEntries(
    unique.map((uid) => {
      const token = encodeURIComponent(ctx.accessTokens.sign({ uid, user, exp }));
      const url = (operation: Operation, query = '') => `${publicUrl}${streamPath(operation, uid)}?${query}token=${token}`;
      return [
        uid,
        {
          live: url(operations.mediaLive),
          archive: url(operations.mediaArchive, range),
          export: url(operations.mediaExport, range),
          preview: url(operations.mediaPreview),
          player: url(operations.mediaPlayer),
        },
      ];
    }),
  );
}
