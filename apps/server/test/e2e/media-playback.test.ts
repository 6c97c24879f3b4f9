import { resolveMediaBinaries, type MediaBinaries } from '@vss/core';
import { startRtspCameraServer, type RtspCameraServer } from '@vss/core/testing';
import { MEDIA_FORBIDDEN_MESSAGE } from '@vss/schema';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/media';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

const run = promisify(execFile);
const PASSWORD = 'Cam-Secret-77';
const SEGMENT_SECONDS = 2;
const FORBIDDEN = { message: MEDIA_FORBIDDEN_MESSAGE, code: 'forbidden' };

let binaries: MediaBinaries;
let work: string;
let files = 0;

beforeAll(async () => {
  binaries = await resolveMediaBinaries();
  work = await mkdtemp(join(tmpdir(), 'vss-playback-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/**
 * Remuxes any input ffmpeg reads (a playlist URL, a file) into an MP4: this machine's ffprobe
 * crashes on MPEG-TS, not on MP4.
 */
async function remux(input: string, options: { before?: string[]; after?: string[] } = {}): Promise<string> {
  files += 1;
  const output = join(work, `${files}.mp4`);
  await run(
    binaries.ffmpeg.path,
    ['-hide_banner', '-loglevel', 'error', ...(options.before ?? []), '-i', input, '-c', 'copy', ...(options.after ?? []), '-f', 'mp4', '-y', output],
    { timeout: 30_000 },
  );
  return output;
}

async function probe(file: string): Promise<{ codec: string; duration: number }> {
  const { stdout } = await run(
    binaries.ffprobe.path,
    ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file],
    { timeout: 30_000 },
  );
  const info = JSON.parse(stdout) as { format: { duration: string }; streams: { codec_name: string }[] };
  return { codec: info.streams[0]!.codec_name, duration: Number(info.format.duration) };
}

const extinfs = (playlist: string) => [...playlist.matchAll(/^#EXTINF:([\d.]+),$/gm)].map((m) => Number(m[1]));
const segmentUris = (playlist: string) => playlist.split('\n').filter((line) => line.startsWith('segments/'));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Checks that an archive playlist is the segments overlapping [from, from + duration): it starts
 * before `from` by less than its first segment and ends after the range by less than its last.
 * Returns the seconds it lists.
 */
function expectCovering(playlist: string, range: { from: number; duration: number }): number {
  const durations = extinfs(playlist);
  const start = Date.parse(/^#EXT-X-PROGRAM-DATE-TIME:(.+)$/m.exec(playlist)![1]!) / 1000;
  const end = start + sum(durations);
  expect(playlist.match(/#EXT-X-PROGRAM-DATE-TIME/g)).toHaveLength(1);
  expect(range.from - start).toBeGreaterThanOrEqual(0);
  expect(range.from - start).toBeLessThan(durations[0]!);
  expect(end - (range.from + range.duration)).toBeGreaterThan(0);
  expect(end - (range.from + range.duration)).toBeLessThan(durations.at(-1)!);
  return sum(durations);
}

describe.each(databaseKinds(process.env.DATABASE_URL))('media playback on %s', (kind) => {
  let camera: RtspCameraServer;
  let server: TestServer;
  let uid: string;
  let otherUid: string;
  /** An access token for `uid`, from the token endpoint. */
  let access: string;
  /** A recorded stretch inside the archive: [from, from + duration). */
  let range: { from: number; duration: number };

  const media = (path: string, stream = uid) => `/api/v1/media/${stream}/${path}`;
  const withToken = (path: string, token: string) => `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  /** GET without the API token; the token, if any, goes in the query. */
  const get = (path: string, token?: string) => server.request(token ? withToken(path, token) : path, { token: false });

  async function issueAccess(stream: string, duration: number): Promise<string> {
    const response = await server.request('/api/auth/token/access/', { body: { uid: stream, user: 'tester', duration } });
    expect(response.status).toBe(200);
    return response.json();
  }

  async function createStream(path: string): Promise<string> {
    const created = await createCamera(server, { streams: [{ type: 'high', is_archive_enabled: true, archive_storage_days: 1 }] });
    const response = await server.request(`/api/admin/v1/cameras/${created.id}/streams`, {
      body: { type: 'high', url: camera.url(path, true) },
    });
    expect(response.status).toBe(201);
    return (await response.json()).uid;
  }

  /** The live playlist, once it lists at least `count` segments. */
  const livePlaylist = (stream: string, count: number) =>
    eventually(
      async () => {
        const response = await server.request(media('live.m3u8', stream));
        const text = response.status === 200 ? await response.text() : '';
        return segmentUris(text).length >= count ? text : undefined;
      },
      { timeoutMs: 25_000, intervalMs: 250, what: `${count} segments of ${stream}` },
    );

  beforeAll(async () => {
    camera = await startRtspCameraServer({ login: 'admin', password: PASSWORD });
    server = await startTestServer(kind, { env: { VSS_MEDIA: 'on', VSS_SEGMENT_SECONDS: String(SEGMENT_SECONDS) } });
    uid = await createStream('cam');
    otherUid = await createStream('other');
    access = await issueAccess(uid, 600);
    await Promise.all([livePlaylist(uid, 3), livePlaylist(otherUid, 1)]);
    // A stretch of one segment's length with whole segments on both sides: the first segment of a
    // recording runs longer (it holds what ffmpeg buffered while connecting), so it is kept out.
    const recorded = await eventually(
      async () => {
        const { data } = await (await server.request(`/api/admin/v1/streams/${uid}/archive/ranges`)).json();
        const last = data.at(-1);
        return last && last.to - last.from >= 11 ? last : undefined;
      },
      { timeoutMs: 20_000, what: '11 s of archive' },
    );
    range = { from: recorded.to - 3 * SEGMENT_SECONDS, duration: SEGMENT_SECONDS };
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await camera?.close();
  });

  it('serves a live playlist of relative segment URIs carrying the token, playable as H.264', async () => {
    const response = await get(media('live.m3u8'), access);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text).toMatch(/^#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\d+\n#EXT-X-MEDIA-SEQUENCE:\d+\n/);
    expect(text).not.toContain('#EXT-X-ENDLIST');
    const uris = segmentUris(text);
    expect(uris.length).toBeGreaterThanOrEqual(3);
    for (const uri of uris) expect(uri).toMatch(new RegExp(`^segments/\\d+\\.ts\\?token=${encodeURIComponent(access).replace(/[.]/g, '\\.')}$`));
    const mp4 = await remux(`${server.url}${withToken(media('live.m3u8'), access)}`, {
      before: ['-live_start_index', '0'],
      after: ['-t', '5'],
    });
    const { codec, duration } = await probe(mp4);
    expect(codec).toBe('h264');
    expect(duration).toBeGreaterThan(2);
  });

  it('serves a segment as MPEG-TS with its length, from the URI in the playlist', async () => {
    const [uri] = segmentUris(await (await get(media('live.m3u8'), access)).text());
    const response = await fetch(new URL(uri!, `${server.url}${media('live.m3u8')}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp2t');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes[0]).toBe(0x47);
  });

  it('serves an archive playlist covering the range within a segment at each end', async () => {
    const path = media(`archive.m3u8?from=${range.from}&duration=${range.duration}`);
    const response = await get(path, access);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const text = await response.text();
    expect(text).toContain('#EXT-X-PLAYLIST-TYPE:VOD\n');
    expect(text.endsWith('#EXT-X-ENDLIST\n')).toBe(true);
    const listed = expectCovering(text, range);
    const { codec, duration } = await probe(await remux(`${server.url}${withToken(path, access)}`));
    expect(codec).toBe('h264');
    expect(Math.abs(duration - listed)).toBeLessThan(0.5);
    expect(Math.abs(duration - range.duration)).toBeLessThanOrEqual(SEGMENT_SECONDS + 0.5);
  });

  it('exports a range as an MP4 download of the same segments', async () => {
    const query = `from=${range.from}&duration=${range.duration}`;
    const listed = expectCovering(await (await get(media(`archive.m3u8?${query}`), access)).text(), range);
    const response = await get(media(`export.mp4?${query}`), access);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${uid}-${range.from}.mp4"`);
    const file = join(work, `export-${kind}.mp4`);
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const { codec, duration } = await probe(file);
    expect(codec).toBe('h264');
    expect(Math.abs(duration - listed)).toBeLessThan(0.5);
    expect(Math.abs(duration - range.duration)).toBeLessThanOrEqual(SEGMENT_SECONDS + 0.5);
  });

  it('serves a JPEG preview of the newest keyframe', async () => {
    const response = await get(media('preview.jpg'), access);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    const jpeg = Buffer.from(await response.arrayBuffer());
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(jpeg.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
  });

  it('lists the archive ranges to API tokens, the newest reaching now', async () => {
    expect((await server.request(`/api/admin/v1/streams/${uid}/archive/ranges`, { token: false })).status).toBe(401);
    expect((await server.request(`/api/admin/v1/streams/nope/archive/ranges`)).status).toBe(404);
    const response = await server.request(`/api/admin/v1/streams/${uid}/archive/ranges`);
    expect(response.status).toBe(200);
    const { data } = await response.json();
    const now = Date.now() / 1000;
    const last = data.at(-1);
    expect(last.from).toBeLessThanOrEqual(now - 3 * SEGMENT_SECONDS);
    expect(last.to).toBeGreaterThan(now - 3 * SEGMENT_SECONDS);
    expect(last.to).toBeLessThanOrEqual(Math.ceil(now));
  });

  it('gives working media URLs with a fresh token through Stream.GetMediaUrls', async () => {
    const rpc = await server.request('/api/', {
      body: { jsonrpc: '2.0', method: 'Stream.GetMediaUrls', params: { uids: [uid], user: 'alice', ttl: 60 }, id: 7 },
    });
    expect(rpc.status).toBe(200);
    const { result } = await rpc.json();
    const urls = result[uid];
    expect(Object.keys(urls).sort()).toEqual(['archive', 'export', 'live', 'player', 'preview']);
    const token = new URL(urls.live).searchParams.get('token');
    expect(token).toBeTruthy();
    expect(token).not.toBe(server.token);
    for (const url of Object.values(urls) as string[]) {
      expect(url.startsWith(`${server.url}/api/v1/media/${uid}/`)).toBe(true);
      expect(new URL(url.replace('{from}', '0').replace('{duration}', '1')).searchParams.get('token')).toBe(token);
    }
    const live = await fetch(urls.live);
    expect(live.status).toBe(200);
    expect(await live.text()).toMatch(/^#EXTM3U\n/);
    const archive = await fetch(urls.archive.replace('{from}', String(range.from)).replace('{duration}', String(range.duration)));
    expect(archive.status).toBe(200);
    // The token opens this stream and no other.
    expect((await fetch(`${server.url}${withToken(media('live.m3u8', otherUid), token!)}`)).status).toBe(403);

    const unknown = await server.request('/api/', {
      body: { jsonrpc: '2.0', method: 'Stream.GetMediaUrls', params: { uids: [uid, 'no-such-stream'] }, id: 8 },
    });
    expect(unknown.status).toBe(400);
    const { error } = await unknown.json();
    expect(error).toMatchObject({ code: -32602, data: { unknown_uids: ['no-such-stream'] } });
  });

  describe('refusals', () => {
    let routes: string[];

    beforeAll(async () => {
      const [segment] = segmentUris(await (await get(media('live.m3u8'), access)).text());
      const archive = `from=${range.from}&duration=${range.duration}`;
      routes = [
        media('live.m3u8'),
        media(`archive.m3u8?${archive}`),
        media(segment!.split('?')[0]!),
        media(`export.mp4?${archive}`),
        media('preview.jpg'),
        media('player'),
      ];
    });

    it('answers 403 with one body for no token, another stream’s, an expired one and garbage', async () => {
      const expiring = await issueAccess(uid, 1);
      const { exp } = JSON.parse(Buffer.from(expiring.split('.')[0]!, 'base64url').toString()) as { exp: number };
      const others = await issueAccess(otherUid, 600);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now() + 50)));
      for (const route of routes) {
        for (const token of [undefined, others, expiring, 'garbage', `${access}x`, server.token.slice(1)]) {
          const response = await get(route, token);
          const what = `${route} with ${token === undefined ? 'no token' : token.slice(0, 12)}`;
          expect(response.status, what).toBe(403);
          expect(await response.json(), what).toEqual(FORBIDDEN);
        }
      }
    });

    it('accepts an API token in the query or the Authorization header', async () => {
      for (const route of routes) {
        const query = await get(route, server.token);
        expect(query.status, route).toBe(200);
        await query.arrayBuffer();
        const header = await server.request(route);
        expect(header.status, route).toBe(200);
        await header.arrayBuffer();
      }
    });

    it('answers 404 for a malformed uid, an unknown stream and segments this stream does not have', async () => {
      const [otherSegment] = segmentUris(await (await server.request(media('live.m3u8', otherUid))).text());
      const otherId = otherSegment!.split('?')[0]!;
      const ours = segmentUris(await (await server.request(media('live.m3u8'))).text());
      const beyondNewest = Number(/(\d+)\.ts/.exec(ours.at(-1)!)![1]) + 1000;
      for (const path of [
        media('live.m3u8', '..%2F..'),
        media('live.m3u8', 'a.b'),
        media('live.m3u8', 'no-such-stream'),
        media('player', 'no-such-stream'),
        media('segments/2147483647.ts'),
        media('segments/0.ts'),
        media('segments/abc.ts'),
        media(otherId.replace('.ts', '')),
        media(`segments/${beyondNewest}.ts`),
      ]) {
        const response = await server.request(path);
        expect(response.status, path).toBe(404);
        await response.arrayBuffer();
      }
      // The other stream's segment is served under its own uid.
      expect((await server.request(media(otherId, otherUid))).status).toBe(200);
    });

    it('answers 422 for a bad range', async () => {
      for (const query of ['', 'from=1', 'from=-1&duration=5', 'from=1&duration=0', 'from=1&duration=86401', 'from=1e3&duration=5']) {
        const response = await server.request(media(`archive.m3u8?${query}`));
        expect(response.status, query).toBe(422);
        await response.arrayBuffer();
      }
      expect((await server.request(media('archive.m3u8?from=1&duration=60'))).status).toBe(404);
      expect((await server.request(media('player?mode=archive&from=1'))).status).toBe(422);
    });
  });

  describe('the player page', () => {
    const dataSrc = (html: string) => /data-src="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&').replaceAll('&#38;', '&');

    it('plays the live playlist with its access token under a strict Content-Security-Policy', async () => {
      const path = withToken(media('player'), access);
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      const html = await response.text();
      expect(html).toMatch(/<video[^>]* muted autoplay playsinline/);
      // Every script is this server's file or the inline one the policy names by hash.
      const inline = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
      expect(csp).toContain(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
      expect(html).not.toMatch(/https?:\/\//);
      const page = new URL(`${server.url}${path}`);
      const script = new URL(/<script src="([^"]+)"/.exec(html)![1]!, page);
      const hls = await fetch(script);
      expect(hls.status).toBe(200);
      expect(hls.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await hls.text()).length).toBeGreaterThan(100_000);
      const playlist = new URL(dataSrc(html), page);
      expect(playlist.pathname).toBe(media('live.m3u8'));
      expect(playlist.searchParams.get('token')).toBe(access);
      expect((await fetch(playlist)).status).toBe(200);
    });

    it('never puts an API token in the page: it gets an access token of its own', async () => {
      for (const response of [await get(media('player'), server.token), await server.request(media('player'))]) {
        const html = await response.text();
        expect(html).not.toContain(server.token);
        const playlist = new URL(dataSrc(html), `${server.url}${media('player')}`);
        expect(playlist.searchParams.get('token')).toBeTruthy();
        expect((await fetch(playlist)).status).toBe(200);
      }
    });

    it('plays an archive range in archive mode', async () => {
      const path = withToken(media(`player?mode=archive&from=${range.from}&duration=${range.duration}`), access);
      const html = await (await get(path)).text();
      const playlist = new URL(dataSrc(html), `${server.url}${path}`);
      expect(playlist.pathname).toBe(media('archive.m3u8'));
      expect(playlist.searchParams.get('from')).toBe(String(range.from));
      const response = await fetch(playlist);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('#EXT-X-ENDLIST');
    });
  });
});
