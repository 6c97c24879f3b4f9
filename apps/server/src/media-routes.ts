import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { finished } from 'node:stream';
import type { Principal, Vss } from '@vss/core';
import { isVssError, VssError } from '@vss/core';
import { issuesToErrors, MEDIA_FORBIDDEN_MESSAGE, operations, validationMessage } from '@vss/schema';
import { getQuery, setResponseHeaders, type H3Event } from 'h3';
import type { z } from 'zod';
import type { Mount, Reply } from './app';
import { extractToken, queryToken } from './http/client';
import { escapeHtml } from './http/negotiate';

const HLS = 'application/vnd.apple.mpegurl';
/** Lifetime of the access token a player page gets when it was asked for with an API token. */
const PLAYER_TOKEN_SECONDS = 12 * 3600;

// Whatever carries a token, or changes from one request to the next, must not be kept by caches.
const noStore = () => ({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });

/**
 * Who may play the stream in the path: an access token for exactly that uid, or an API token
 * (then its principal). Wrong, expired and missing tokens get one and the same 403, so a refusal
 * says nothing about the token or the stream.
 */
export async function authorizePlayback(vss: Vss, event: H3Event): Promise<Principal | undefined> {
  const token = extractToken(event);
  if (vss.tokens.verifyAccessToken(token, event.context.params?.uid ?? '')) return undefined;
  try {
    return await vss.tokens.authenticate(token);
  } catch (error) {
    if (isVssError(error) && error.code === 'unauthenticated') throw new VssError('forbidden', MEDIA_FORBIDDEN_MESSAGE);
    throw error;
  }
}

/** The query of a media operation, parsed by its contract in the operation table; 422 otherwise. */
function parseQuery<T extends z.ZodType>(event: H3Event, schema: T): z.output<T> {
  const result = schema.safeParse(getQuery(event), { reportInput: true });
  if (result.success) return result.data;
  const errors = issuesToErrors(result.error.issues);
  throw new VssError('validation_failed', validationMessage(errors), { errors });
}

/**
 * What the URIs inside a playlist carry: the token, when it came in the query. One sent in a
 * header is the client's to send again with each segment.
 */
function tokenQuery(event: H3Event): string {
  const token = queryToken(event);
  return token ? `token=${encodeURIComponent(token)}` : '';
}

const media = (type: string, body: Extract<Reply, { type: string }>['body']): Reply => ({ status: 200, type, body });

/** A link from one operation's page to another's, relative so that it works under any path prefix. */
const relativeLink = (from: string, to: string) => posix.relative(posix.dirname(from), to);

// The page's only inline code, fixed so that the Content-Security-Policy can allow it by its hash;
// what varies (the playlist URL) is read from the video element.
const PLAYER_SCRIPT = `(() => {
  const video = document.getElementById('video');
  const src = video.dataset.src;
  if (!window.Hls || !Hls.isSupported()) {
    if (video.canPlayType('${HLS}')) video.src = src;
    return;
  }
  const hls = new Hls();
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    // A stream that is reconnecting has no live video for a while: try again, without hammering.
    if (data.type === Hls.ErrorTypes.NETWORK_ERROR) setTimeout(() => hls.loadSource(src), 3000);
    else if (data.type === Hls.ErrorTypes.MEDIA_ERROR) hls.recoverMediaError();
  });
  hls.loadSource(src);
  hls.attachMedia(video);
})();`;
const PLAYER_STYLE = 'html,body{margin:0;height:100%;background:#000}video{display:block;width:100%;height:100%;object-fit:contain}';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

// hls.js feeds the video element through MediaSource (blob: URLs) and may run in a blob: worker.
const PLAYER_CSP = [
  "default-src 'none'",
  `script-src 'self' ${sha256(PLAYER_SCRIPT)}`,
  `style-src ${sha256(PLAYER_STYLE)}`,
  "media-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function playerPage(uid: string, playlist: string): string {
  const script = relativeLink(operations.mediaPlayer.path, operations.mediaPlayerScript.path);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(uid)}</title>
<style>${PLAYER_STYLE}</style>
</head>
<body>
<video id="video" muted autoplay playsinline controls data-src="${escapeHtml(playlist)}"></video>
<script src="${escapeHtml(script)}"></script>
<script>${PLAYER_SCRIPT}</script>
</body>
</html>
`;
}

const require = createRequire(import.meta.url);
let hlsScript: Promise<Buffer> | undefined;

/** Mounts live and archive playback, exports, previews, the player page and its script. */
export function mountMediaRoutes(mount: Mount, vss: Vss) {
  const playback = () => {
    if (!vss.media) throw new VssError('not_found', 'Playback is off on this server (VSS_MEDIA=off).');
    return vss.media.playback;
  };
  const uidOf = (params: Record<string, number | string>) => params.uid as string;

  mount('getArchiveRanges', async ({ params }) => ({ status: 200, json: await playback().archiveRanges(uidOf(params)) }));

  mount(
    'mediaLive',
    async ({ event, params }) => media(HLS, await playback().livePlaylist(uidOf(params), tokenQuery(event))),
    { headers: noStore },
  );

  mount(
    'mediaArchive',
    async ({ event, params }) => {
      const { from, duration } = parseQuery(event, operations.mediaArchive.query);
      return media(HLS, await playback().archivePlaylist(uidOf(params), from, duration, tokenQuery(event)));
    },
    { headers: noStore },
  );

  mount('mediaSegment', async ({ event, params }) => {
    const file = await playback().openSegment(uidOf(params), params.segment as number);
    // Whether the response completes, fails or the client has already gone, the hold ends with it.
    finished(event.node.res, file.release);
    setResponseHeaders(event, {
      'content-length': file.size,
      // A segment never changes once written.
      'cache-control': 'private, max-age=86400, immutable',
      'x-content-type-options': 'nosniff',
    });
    return media('video/mp2t', createReadStream(file.path));
  });

  mount(
    'mediaExport',
    async ({ event, params }) => {
      const uid = uidOf(params);
      const { from, duration } = parseQuery(event, operations.mediaExport.query);
      const video = await playback().exportMp4(uid, from, duration);
      setResponseHeaders(event, { 'content-disposition': `attachment; filename="${uid}-${from}.mp4"` });
      return media('video/mp4', video);
    },
    { headers: noStore },
  );

  mount('mediaPreview', async ({ params }) => media('image/jpeg', await playback().preview(uidOf(params))), {
    headers: noStore,
  });

  mount(
    'mediaPlayer',
    async ({ event, params, principal }) => {
      const uid = uidOf(params);
      const query = parseQuery(event, operations.mediaPlayer.query);
      // Like every media route: 404 when playback is off or the stream is unknown.
      playback();
      await vss.streams.get(uid);
      // An API token never goes into a page: the page gets an access token for this stream instead.
      const token = principal
        ? await vss.tokens.issueAccessToken({ uid, user: principal.client, duration: PLAYER_TOKEN_SECONDS })
        : extractToken(event)!;
      const search = new URLSearchParams(
        query.mode === 'archive' ? { from: String(query.from), duration: String(query.duration), token } : { token },
      );
      const target = query.mode === 'archive' ? operations.mediaArchive : operations.mediaLive;
      const playlist = `${relativeLink(operations.mediaPlayer.path, target.path)}?${search}`;
      setResponseHeaders(event, { 'content-security-policy': PLAYER_CSP, 'referrer-policy': 'no-referrer' });
      return media('text/html; charset=utf-8', playerPage(uid, playlist));
    },
    { headers: noStore },
  );

  mount(
    'mediaPlayerScript',
    async () => {
      hlsScript ??= readFile(require.resolve('hls.js/dist/hls.min.js'));
      return media('text/javascript; charset=utf-8', await hlsScript);
    },
    { headers: () => ({ 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' }) },
  );
}
