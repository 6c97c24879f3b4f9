import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenSigner } from '../crypto';
import { openDatabase, type OpenedDatabase } from '../db/client';
import { cameras, segments, streams, treeElements } from '../db/schema';
import { silentLogger } from '../logger';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../testing/database';
import { createPlayback, getMediaUrls, type Playback } from './playback';
import { createSegmentStore, type SegmentStore } from './segment-store';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean | Promise<boolean>, what: string) {
  for (const deadline = Date.now() + 5_000; !(await check()); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const seconds = (ms: number) => ms / 1000;

/** Segment timings relative to T0, in milliseconds. */
interface Cut {
  at: number;
  ms: number;
  discontinuity?: boolean;
}

describe.each(databaseKinds(process.env.DATABASE_URL))('playback on %s', (kind) => {
  let database: TestDatabase;
  let opened: OpenedDatabase;
  let mediaRoot: string;
  let store: SegmentStore;
  let playback: Playback;
  let groupId: number;

  beforeAll(async () => {
    database = await createTestDatabase(kind, { databaseUrl: process.env.DATABASE_URL, inMemory: true });
    opened = await openDatabase(database);
    mediaRoot = await mkdtemp(join(tmpdir(), 'vss-playback-'));
    store = createSegmentStore(opened.db, mediaRoot);
    // Playlists, segments and ranges never run ffmpeg; the e2e tests cover exports and previews.
    const ffmpeg = { path: '/nonexistent/ffmpeg', version: '', major: 0, source: 'configured' as const };
    playback = createPlayback({ db: opened.db, logger: silentLogger }, store, ffmpeg, { liveSegments: 6 });
    const [group] = await opened.db.insert(treeElements).values({ name: 'Group' }).returning();
    groupId = group!.id;
  });

  afterAll(async () => {
    await opened?.close();
    await database?.cleanup();
    if (mediaRoot) await rm(mediaRoot, { recursive: true, force: true });
  });

  let streamCount = 0;
  /** A stream with segments (and their files) at the given cuts; returns its uid, row ids and sequence numbers. */
  async function streamWith(cuts: Cut[]) {
    streamCount += 1;
    const uid = `cam-${streamCount}`;
    const [camera] = await opened.db
      .insert(cameras)
      .values({ uuid: randomUUID(), name: uid, mac: uid, groupType: 'public', treeElementId: groupId })
      .returning();
    const [stream] = await opened.db.insert(streams).values({ uid, cameraId: camera!.id, type: 'high' }).returning();
    await mkdir(join(mediaRoot, uid), { recursive: true });
    const ids: number[] = [];
    const seqs: number[] = [];
    for (const [index, cut] of cuts.entries()) {
      const startedAt = new Date(T0 + cut.at);
      const path = join(uid, `${startedAt.getTime()}.ts`);
      await writeFile(join(mediaRoot, path), `segment ${cut.at}`);
      const [row] = await opened.db
        .insert(segments)
        .values({
          streamId: stream!.id,
          sequence: index + 1,
          startedAt,
          durationMs: cut.ms,
          sizeBytes: 10,
          path,
          discontinuity: cut.discontinuity ?? false,
        })
        .returning();
      ids.push(row!.id);
      seqs.push(row!.sequence);
    }
    return { uid, ids, seqs };
  }

  /** Cuts of `count` back-to-back segments of `ms` each, starting at `at`. */
  const run = (at: number, count: number, ms = 2000): Cut[] =>
    Array.from({ length: count }, (_, index) => ({ at: at + index * ms, ms }));

  it('lists the newest segments live, with relative URIs carrying the query', async () => {
    const { uid, seqs } = await streamWith([...run(0, 5), { at: 10_000, ms: 2400 }]);
    const text = await playback.livePlaylist(uid, 'token=a%2Bb');
    // Half the six segments retention keeps for live viewing.
    const live = seqs.slice(-3);
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:3',
        '#EXT-X-TARGETDURATION:3',
        `#EXT-X-MEDIA-SEQUENCE:${live[0]}`,
        `#EXT-X-PROGRAM-DATE-TIME:${new Date(T0 + 6000).toISOString()}`,
        '#EXTINF:2.000,',
        `segments/${live[0]}.ts?token=a%2Bb`,
        '#EXTINF:2.000,',
        `segments/${live[1]}.ts?token=a%2Bb`,
        '#EXTINF:2.400,',
        `segments/${live[2]}.ts?token=a%2Bb`,
        '',
      ].join('\n'),
    );
    expect(text).not.toMatch(/ENDLIST|PLAYLIST-TYPE/);
  });

  it('leaves the URIs bare without a query', async () => {
    const { uid, seqs } = await streamWith(run(0, 1));
    expect(await playback.livePlaylist(uid, '')).toContain(`\nsegments/${seqs[0]}.ts\n`);
  });

  it('marks discontinuities at flagged segments and after gaps over half a second', async () => {
    const { uid, seqs } = await streamWith([
      { at: 0, ms: 2000 },
      // 0.4 s late: still continuous.
      { at: 2400, ms: 2000 },
      // 0.6 s late: a gap.
      { at: 5000, ms: 2000 },
      // On time, but after an interruption.
      { at: 7000, ms: 2000, discontinuity: true },
      { at: 9000, ms: 1500 },
    ]);
    const text = await playback.archivePlaylist(uid, seconds(T0), 60, 'token=t');
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:3',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-MEDIA-SEQUENCE:0',
        `#EXT-X-PROGRAM-DATE-TIME:${new Date(T0).toISOString()}`,
        '#EXTINF:2.000,',
        `segments/${seqs[0]}.ts?token=t`,
        '#EXTINF:2.000,',
        `segments/${seqs[1]}.ts?token=t`,
        '#EXT-X-DISCONTINUITY',
        `#EXT-X-PROGRAM-DATE-TIME:${new Date(T0 + 5000).toISOString()}`,
        '#EXTINF:2.000,',
        `segments/${seqs[2]}.ts?token=t`,
        '#EXT-X-DISCONTINUITY',
        `#EXT-X-PROGRAM-DATE-TIME:${new Date(T0 + 7000).toISOString()}`,
        '#EXTINF:2.000,',
        `segments/${seqs[3]}.ts?token=t`,
        '#EXTINF:1.500,',
        `segments/${seqs[4]}.ts?token=t`,
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });

  it('rounds the target duration up to cover the longest segment', async () => {
    const { uid } = await streamWith([{ at: 0, ms: 2001 }, { at: 2001, ms: 1000 }]);
    expect(await playback.livePlaylist(uid, '')).toContain('#EXT-X-TARGETDURATION:3\n');
  });

  it('puts in an archive playlist exactly the segments overlapping the range', async () => {
    const { uid, seqs } = await streamWith(run(0, 10));
    // [5 s, 9 s) overlaps the segments starting at 4, 6 and 8 s, not the one ending at 4 s nor the one starting at 10 s.
    const text = await playback.archivePlaylist(uid, seconds(T0) + 5, 4, '');
    expect(text.split('\n').filter((line) => line.startsWith('segments/'))).toEqual(
      [seqs[2], seqs[3], seqs[4]].map((id) => `segments/${id}.ts`),
    );
  });

  it('answers 404 for a range without recording, an unknown stream, or a stream without video', async () => {
    const { uid } = await streamWith(run(0, 2));
    await expect(playback.archivePlaylist(uid, seconds(T0) + 3600, 60, '')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no recording'),
    });
    await expect(playback.livePlaylist('missing', '')).rejects.toMatchObject({ code: 'not_found' });
    const empty = await streamWith([]);
    await expect(playback.livePlaylist(empty.uid, '')).rejects.toMatchObject({ code: 'not_found' });
    await expect(playback.preview(empty.uid)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('opens a segment of its own stream only, and holds it until released', async () => {
    const first = await streamWith(run(0, 2));
    const second = await streamWith(run(0, 1));
    const file = await playback.openSegment(first.uid, first.seqs[0]!);
    expect(file.path).toBe(join(store.root, first.uid, `${T0}.ts`));
    expect(file.size).toBe(`segment 0`.length);
    const [row] = await opened.db.select().from(segments).where(eq(segments.id, first.ids[0]!));
    expect(await store.remove([row!])).toBe(0);
    file.release();
    expect(await store.remove([row!])).toBe(1);
    await expect(playback.openSegment(first.uid, first.seqs[0]!)).rejects.toMatchObject({ code: 'not_found' });
    await expect(playback.openSegment(second.uid, first.seqs[1]!)).rejects.toMatchObject({ code: 'not_found' });
    await expect(playback.openSegment(first.uid, 9_007_199_254_740_991)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('gives a segment whose file is gone as not found', async () => {
    const { uid, seqs } = await streamWith(run(0, 1));
    await rm(join(mediaRoot, uid, `${T0}.ts`));
    await expect(playback.openSegment(uid, seqs[0]!)).rejects.toMatchObject({ code: 'not_found' });
  });

  describe('with a stand-in for ffmpeg', () => {
    let scripts = 0;
    /** A playback whose "ffmpeg" is this shell script (its arguments ignored). */
    async function playbackRunning(script: string) {
      scripts += 1;
      const path = join(mediaRoot, `ffmpeg-${scripts}.sh`);
      await writeFile(path, `#!/bin/sh\n${script}\n`);
      await chmod(path, 0o755);
      const ffmpeg = { path, version: '', major: 0, source: 'configured' as const };
      return createPlayback({ db: opened.db, logger: silentLogger }, store, ffmpeg, { liveSegments: 6 });
    }
    const rowsOf = (ids: number[]) => opened.db.select().from(segments).where(inArray(segments.id, ids));

    it('exports by feeding the segment files to one ffmpeg, in order, and ends with it', async () => {
      const { uid } = await streamWith(run(0, 3));
      const echo = await playbackRunning('exec cat');
      const video = await collect(await echo.exportMp4(uid, seconds(T0), 6));
      expect(video.toString()).toBe('segment 0segment 2000segment 4000');
    });

    it('holds the segments while exporting and kills ffmpeg when the reader goes away', async () => {
      const { uid, ids } = await streamWith(run(0, 2));
      // More than a pipe holds: the first file is still being fed when ffmpeg stops reading.
      await writeFile(join(mediaRoot, uid, `${T0}.ts`), Buffer.alloc(1024 * 1024));
      const pidFile = join(mediaRoot, 'export.pid');
      const stuck = await playbackRunning(`echo $$ > ${pidFile}; exec sleep 30`);
      const video = await stuck.exportMp4(uid, seconds(T0), 4);
      await eventually(async () => (await readFile(pidFile, 'utf8').catch(() => '')).endsWith('\n'), 'ffmpeg to start');
      const pid = Number(await readFile(pidFile, 'utf8'));
      expect(isRunning(pid)).toBe(true);
      expect(await store.remove(await rowsOf(ids))).toBe(0);
      video.destroy();
      await eventually(() => !isRunning(pid), 'ffmpeg to be killed');
      expect(await store.remove(await rowsOf(ids))).toBe(2);
    });

    it('fails the stream when ffmpeg fails, with what it said', async () => {
      const { uid } = await streamWith(run(0, 1));
      const failing = await playbackRunning('cat > /dev/null; echo "bad input" >&2; exit 3');
      await expect(collect(await failing.exportMp4(uid, seconds(T0), 2))).rejects.toThrow(/code 3: bad input/);
    });

    it('makes a preview once per newest segment', async () => {
      const { uid } = await streamWith(run(0, 1));
      const calls = join(mediaRoot, 'preview.calls');
      const jpeg = await playbackRunning(`echo >> ${calls}; printf 'JPEG'`);
      expect((await jpeg.preview(uid)).toString()).toBe('JPEG');
      expect((await jpeg.preview(uid)).toString()).toBe('JPEG');
      expect((await readFile(calls, 'utf8')).length).toBe(1);
    });
  });

  it('merges the archive into stretches at gaps over a second and at discontinuities', async () => {
    const { uid } = await streamWith([
      ...run(0, 3),
      // 0.9 s late: the same stretch.
      { at: 6900, ms: 2000 },
      // 1.5 s late: a new one.
      { at: 10_400, ms: 2000 },
      // On time, but after an interruption: a new one.
      { at: 12_400, ms: 2000, discontinuity: true },
      { at: 14_400, ms: 1100 },
    ]);
    const base = seconds(T0);
    expect(await playback.archiveRanges(uid)).toEqual({
      data: [
        { from: base, to: base + 9 },
        { from: base + 10, to: base + 13 },
        { from: base + 12, to: base + 16 },
      ],
    });
    expect(await playback.archiveRanges((await streamWith([])).uid)).toEqual({ data: [] });
  });

  it('makes media URLs with a token for each stream, all streams or none', async () => {
    const a = await streamWith([]);
    const b = await streamWith([]);
    const signer = new AccessTokenSigner('secret');
    const ctx = { db: opened.db, accessTokens: signer, now: () => new Date(T0) };
    const urls = await getMediaUrls(ctx, { uids: [a.uid, b.uid, a.uid], ttl: 60 }, 'https://vss.example');
    expect(Object.keys(urls)).toEqual([a.uid, b.uid]);
    const token = new URL(urls[a.uid]!.live).searchParams.get('token')!;
    expect(signer.verify(token)).toEqual({ uid: a.uid, user: 'viewer', exp: seconds(T0) + 60 });
    const query = `token=${encodeURIComponent(token)}`;
    expect(urls[a.uid]).toEqual({
      live: `https://vss.example/api/v1/media/${a.uid}/live.m3u8?${query}`,
      archive: `https://vss.example/api/v1/media/${a.uid}/archive.m3u8?from={from}&duration={duration}&${query}`,
      export: `https://vss.example/api/v1/media/${a.uid}/export.mp4?from={from}&duration={duration}&${query}`,
      preview: `https://vss.example/api/v1/media/${a.uid}/preview.jpg?${query}`,
      player: `https://vss.example/api/v1/media/${a.uid}/player?${query}`,
    });
    const forever = await getMediaUrls(ctx, { uids: [b.uid], user: 'alice', ttl: 0 }, '');
    expect(signer.verify(new URL(forever[b.uid]!.live, 'http://x').searchParams.get('token')!)).toEqual({
      uid: b.uid,
      user: 'alice',
      exp: 0,
    });
    await expect(getMediaUrls(ctx, { uids: [a.uid, 'nope', 'gone'] }, '')).rejects.toMatchObject({
      code: 'not_found',
      details: { data: { unknown_uids: ['nope', 'gone'] } },
    });
    await expect(getMediaUrls(ctx, { uids: [] }, '')).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
