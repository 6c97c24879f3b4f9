import { spawn } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fieldError } from '../errors';
import { silentLogger, type Logger } from '../logger';
import type { MediaBinary } from './binaries';
import type { Ingest, IngestListener, IngestSpec, StreamDriver } from './driver';

export interface FfmpegDriverOptions {
  ffmpeg: MediaBinary;
  /** How long a connect or a read on the source may stall before ffmpeg gives up. */
  socketTimeoutSeconds?: number;
  /** How long stop() waits after SIGTERM before it sends SIGKILL. */
  stopGraceMs?: number;
  logger?: Logger;
}

const SOURCE_SCHEMES = new Set(['rtsp:', 'rtsps:', 'rtmp:', 'http:', 'https:']);

// What ffmpeg may open on a source's behalf, redirects and playlists included. RTSP is a demuxer,
// not a protocol: it opens tcp (rtsp) or tls (rtsps) itself, and with TCP transport it needs no
// rtp/udp. crypto only ever wraps http(s), for AES-encrypted HLS. Nothing local (file, pipe,
// concat, subfile, data) is here, so a hostile source cannot point ffmpeg at the disk.
const PROTOCOL_WHITELIST = 'tcp,tls,rtmp,http,https,httpproxy,crypto';

const MIN_BARE_SECRET_LENGTH = 4;

/** Lines of stderr kept to explain an exit; older ones are dropped. */
const REASON_LINES = 4;
/** Longer lines are cut, so a misbehaving ffmpeg cannot grow the driver's memory. */
const MAX_LINE_LENGTH = 1024;

/** The source URL, refused unless it is a remote stream ffmpeg is allowed to pull. */
function checkedSourceUrl(sourceUrl: string): URL {
  let url: URL;
  try {
    url = new URL(sourceUrl);
  } catch {
    throw fieldError('url', 'The source URL is not a valid URL.');
  }
  if (!SOURCE_SCHEMES.has(url.protocol)) {
    throw fieldError('url', 'The source URL must use rtsp, rtsps, rtmp, http or https.');
  }
  if (!url.hostname) throw fieldError('url', 'The source URL must name a host.');
  return url;
}

/**
 * ffmpeg's command line for one ingest: pull the source, copy its first video stream unchanged and
 * cut it on keyframes into MPEG-TS files, listing each file on stdout once it is written. It is
 * meant to run with fd 3 open to the driver (see the last output).
 */
export function ffmpegArguments(
  spec: IngestSpec,
  options: { ffmpegMajor: number; socketTimeoutSeconds: number },
): string[] {
  const url = checkedSourceUrl(spec.sourceUrl);
  const timeoutMicroseconds = String(Math.round(options.socketTimeoutSeconds * 1_000_000));
  const rtsp = url.protocol === 'rtsp:' || url.protocol === 'rtsps:';
  const sourceOptions = rtsp
    ? [
        // Interleaved in the RTSP connection: no lost packets (torn frames) under load, and it
        // passes NAT and firewalls, which UDP from the camera often does not.
        '-rtsp_transport', 'tcp',
        // Audio is not recorded (see below), so it is not even set up.
        '-allowed_media_types', 'video',
        // FFmpeg 5 renamed -stimeout to -timeout; before 5, an RTSP -timeout makes ffmpeg LISTEN for
        // a camera instead of calling it. An unknown release line gets -stimeout: on a newer ffmpeg
        // that fails loudly ("unrecognized option"), where -timeout on an old one would hang silently.
        options.ffmpegMajor >= 5 ? '-timeout' : '-stimeout', timeoutMicroseconds,
      ]
    : // Generic to every URL protocol; the protocols' own -timeout means "listen" for rtmp.
      ['-rw_timeout', timeoutMicroseconds];
  // An absolute path cannot be mistaken for "protocol:..."; a literal % must not become a pattern.
  const pattern = join(resolve(spec.segmentDir).replaceAll('%', '%%'), '%06d.ts');
  return [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    // Progress lines go to stderr whatever the log level.
    '-nostats',
    ...sourceOptions,
    '-protocol_whitelist', PROTOCOL_WHITELIST,
    // The URL as parsed and checked above, so ffmpeg cannot read it differently from the check.
    '-i', url.href,
    // Video only: the archive's readers (HLS, MP4 export, previews, motion detection) are video,
    // the commonest camera audio (G.711) has no MPEG-TS mapping players decode, and a broken audio
    // track must not be able to stall or end the recording of the video.
    '-map', '0:v:0', '-c', 'copy',
    // MPEG-TS names its service in DVB text, which is ISO 6937 unless its first byte says otherwise.
    // Static builds such as the npm ffprobe (FFmpeg 6) crash loading that converter, so the text is
    // marked UTF-8 (0x15); fixed names also keep the camera's SDP session name out of the archive.
    '-metadata', 'service_provider=\x15VSS', '-metadata', 'service_name=\x15VSS',
    '-f', 'segment', '-segment_format', 'mpegts', '-segment_time', String(spec.segmentSeconds),
    // A source's first frames often arrive without timestamps and are packed together, so the
    // keyframe that should end the first segment can come a little before the cut time; without
    // this slack the cut waits a whole GOP more, and a (re)started stream shows its first segment
    // late.
    '-segment_time_delta', String(Math.min(0.5, spec.segmentSeconds / 4)),
    // Timestamps run on across segments, so consecutive files play as one stream (HLS needs that).
    '-reset_timestamps', '0',
    // With csv and no list size, the segmenter writes "name,start,end" right after a segment's
    // trailer is flushed: the moment the file is complete.
    '-segment_list', 'pipe:1', '-segment_list_type', 'csv',
    pattern,
    // A lifeline: per-packet checksums to fd 3, buffered (a write every ~32 KiB, about 20 s of
    // video), which the driver reads and drops. ffmpeg ignores SIGPIPE and a failed segment list
    // write, so without this it would record on for ever after the server died; a failed packet
    // write ends every output and so ffmpeg itself.
    '-map', '0:v:0', '-c', 'copy', '-f', 'framecrc', '-flush_packets', '0', 'pipe:3',
  ];
}

/**
 * Hides the credentials of `sourceUrl` in `text`: the userinfo of every URL, and the password
 * wherever it shows up on its own (as written in the URL and percent-decoded).
 */
export function redactCredentials(text: string, sourceUrl: string): string {
  let redacted = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@');
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(sourceUrl)?.[1] ?? '';
  const colon = userinfo.indexOf(':');
  const password = colon < 0 ? '' : userinfo.slice(colon + 1);
  // A password met outside a URL is only looked for when long enough not to shred ordinary words;
  // ffmpeg prints credentials inside URLs, which are covered above whatever their length.
  const secrets = [userinfo, password, safeDecode(password)]
    .filter((secret) => secret.length >= MIN_BARE_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) redacted = redacted.replaceAll(secret, '***');
  return redacted;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Calls `onLine` for each line of `stream`. */
function readLines(stream: Readable, onLine: (line: string) => void): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split(/\r\n|\r|\n/);
    partial = lines.pop()!.slice(0, MAX_LINE_LENGTH);
    for (const line of lines) if (line) onLine(line.slice(0, MAX_LINE_LENGTH));
  });
  stream.on('end', () => {
    if (partial) onLine(partial);
  });
}

export function ffmpegDriver(options: FfmpegDriverOptions): StreamDriver {
  const { ffmpeg, socketTimeoutSeconds = 5, stopGraceMs = 3000, logger = silentLogger } = options;

  function start(spec: IngestSpec, listener: IngestListener): Ingest {
    const args = ffmpegArguments(spec, { ffmpegMajor: ffmpeg.major, socketTimeoutSeconds });
    const sourceUrl = checkedSourceUrl(spec.sourceUrl).href;
    const redact = (text: string) => redactCredentials(text, sourceUrl);
    logger.debug('ingest starting', { uid: spec.uid, driver: 'ffmpeg', args: args.map(redact) });

    const child = spawn(ffmpeg.path, args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    (child.stdio[3] as Readable | null)?.resume();
    const recentErrors: string[] = [];
    let stopping = false;
    let ended = false;
    let killTimer: NodeJS.Timeout | undefined;
    let markGone!: () => void;
    const gone = new Promise<void>((resolveGone) => (markGone = resolveGone));

    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(killTimer);
      markGone();
      if (stopping) return;
      logger.debug('ingest ended', { uid: spec.uid, reason });
      listener.exit(reason);
    };

    readLines(child.stdout!, (line) => {
      const entry = /^(.+),(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(line);
      if (!entry) return logger.warn('unexpected ffmpeg output', { uid: spec.uid, line: redact(line) });
      const [, name, start, endTime] = entry;
      listener.segment({
        path: join(spec.segmentDir, basename(name!)),
        start: Number(start),
        duration: Number(endTime) - Number(start),
      });
    });
    readLines(child.stderr!, (line) => {
      // "[tcp @ 0x55d0c8]" names a C object by address; it only makes otherwise equal reasons differ.
      const cleaned = redact(line.replace(/^\[([\w-]+) @ 0x[0-9a-f]+\] /, '[$1] ').trim());
      logger.debug('ffmpeg', { uid: spec.uid, line: cleaned });
      recentErrors.push(cleaned);
      if (recentErrors.length > REASON_LINES) recentErrors.shift();
    });

    child.on('error', (error: NodeJS.ErrnoException) => {
      // Without a pid the process never started, and 'close' may not follow.
      if (child.pid === undefined) end(`ffmpeg could not be started (${error.code ?? error.message}).`);
    });
    // 'close' comes after stdout ended, so every segment line has been handled by then.
    child.on('close', (code, signal) => {
      const detail = recentErrors.length ? `: ${recentErrors.join('; ')}` : '.';
      if (signal) end(`ffmpeg was killed by ${signal}${detail}`);
      // ffmpeg takes a read timeout for the end of the input and exits 0, as when the source hangs up.
      else if (code === 0) end(`The source closed the stream or sent nothing for ${socketTimeoutSeconds} s${detail}`);
      else end(`ffmpeg exited with code ${code}${detail}`);
    });

    return {
      get pid() {
        return child.pid;
      },
      stop() {
        if (!stopping && !ended) {
          stopping = true;
          // On SIGTERM ffmpeg finishes and lists the segment it is writing, then exits.
          child.kill('SIGTERM');
          killTimer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
        }
        return gone;
      },
    };
  }

  return { name: 'ffmpeg', start };
}
