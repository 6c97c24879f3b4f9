import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger';
import { startRtspCameraServer, type RtspCameraServer } from '../testing';
import { resolveMediaBinaries, type MediaBinaries, type MediaBinary } from './binaries';
import type { IngestSpec } from './driver';
import { describeStreamDriverConformance, ingestRunner } from './driver-conformance';
import { ffmpegArguments, ffmpegDriver, redactCredentials } from './ffmpeg-driver';

const run = promisify(execFile);

const LOGIN = 'vss-operator';
const PASSWORD = 'S3cret:p@ss/word';
const SOCKET_TIMEOUT_SECONDS = 2;
// The test clip has a keyframe every 2 s, and cuts can only fall on keyframes.
const SEGMENT_SECONDS = 2;

function wrongPassword(url: string): string {
  const wrong = new URL(url);
  wrong.password = 'Wr0ng-pass';
  return wrong.toString();
}

describeStreamDriverConformance('ffmpeg', async () => {
  const [{ ffmpeg }, camera] = await Promise.all([
    resolveMediaBinaries(),
    startRtspCameraServer({ login: LOGIN, password: PASSWORD }),
  ]);
  return {
    driver: ffmpegDriver({ ffmpeg, socketTimeoutSeconds: SOCKET_TIMEOUT_SECONDS, stopGraceMs: 2000 }),
    socketTimeoutSeconds: SOCKET_TIMEOUT_SECONDS,
    segmentSeconds: SEGMENT_SECONDS,
    sourceUrl: (path) => camera.url(path, true),
    wrongPasswordUrl: (path) => wrongPassword(camera.url(path, true)),
    outage: () => camera.stop(),
    recover: () => camera.start(),
    close: () => camera.close(),
  };
});

describe('ffmpegArguments', () => {
  const spec: IngestSpec = {
    uid: 'cam-high',
    sourceUrl: 'rtsp://admin:secret@192.0.2.1:554/Streaming/Channels/101',
    segmentDir: '/var/lib/vss/segments/cam-high/run-1',
    segmentSeconds: 2,
  };
  const optionValue = (args: string[], name: string) => {
    const index = args.indexOf(name);
    return index < 0 ? undefined : args[index + 1];
  };

  it('passes the source URL as one argument and only network protocols', () => {
    const args = ffmpegArguments(spec, { ffmpegMajor: 4, socketTimeoutSeconds: 5 });
    expect(args.filter((arg) => arg === spec.sourceUrl)).toHaveLength(1);
    expect(optionValue(args, '-i')).toBe(spec.sourceUrl);
    const protocols = optionValue(args, '-protocol_whitelist')!.split(',');
    for (const local of ['file', 'pipe', 'concat', 'data', 'subfile']) expect(protocols).not.toContain(local);
    expect(args).toContain('/var/lib/vss/segments/cam-high/run-1/%06d.ts');
    expect(optionValue(args, '-c')).toBe('copy');
  });

  it('uses -stimeout before FFmpeg 5, where an RTSP -timeout means listen', () => {
    const args = ffmpegArguments(spec, { ffmpegMajor: 4, socketTimeoutSeconds: 5 });
    expect(optionValue(args, '-stimeout')).toBe('5000000');
    expect(args).not.toContain('-timeout');
  });

  it('uses -timeout from FFmpeg 5 on, where -stimeout is gone', () => {
    const args = ffmpegArguments(spec, { ffmpegMajor: 5, socketTimeoutSeconds: 5 });
    expect(optionValue(args, '-timeout')).toBe('5000000');
    expect(args).not.toContain('-stimeout');
  });

  it('gives http and rtmp sources a read timeout and no RTSP options', () => {
    for (const sourceUrl of ['https://192.0.2.1/live.m3u8', 'rtmp://192.0.2.1/live/cam']) {
      for (const ffmpegMajor of [4, 5]) {
        const args = ffmpegArguments({ ...spec, sourceUrl }, { ffmpegMajor, socketTimeoutSeconds: 2 });
        expect(optionValue(args, '-rw_timeout')).toBe('2000000');
        expect(args.filter((arg) => arg.startsWith('-rtsp') || arg.endsWith('timeout'))).toEqual(['-rw_timeout']);
      }
    }
  });

  it('keeps a % in the segment directory literal', () => {
    const args = ffmpegArguments({ ...spec, segmentDir: '/tmp/100%' }, { ffmpegMajor: 4, socketTimeoutSeconds: 5 });
    expect(args).toContain('/tmp/100%%/%06d.ts');
  });
});

describe('redactCredentials', () => {
  it('hides the userinfo and the password wherever they appear', () => {
    const url = 'rtsp://admin:secret@host/stream';
    const text = `${url}: 401 Unauthorized; tried secret; rtsp://other:pw@h2/x`;
    const redacted = redactCredentials(text, url);
    expect(redacted).not.toContain('secret');
    expect(redacted).not.toContain('admin');
    expect(redacted).not.toContain('pw@');
    expect(redacted).toContain('rtsp://***@host/stream: 401 Unauthorized');
  });

  it('hides a password with reserved characters, written encoded or not', () => {
    const url = 'rtsp://admin:p%40ss%2Fw@host/stream';
    const redacted = redactCredentials(`${url} p@ss/w p%40ss%2Fw`, url);
    expect(redacted).not.toMatch(/p@ss|p%40ss/);
  });
});

describe('ffmpegDriver', () => {
  let binaries: MediaBinaries;
  let camera: RtspCameraServer;
  const startRun = ingestRunner();
  const start = (ffmpeg: MediaBinary, path: string) =>
    startRun(ffmpegDriver({ ffmpeg, socketTimeoutSeconds: SOCKET_TIMEOUT_SECONDS }), camera.url(path, true), SEGMENT_SECONDS);

  beforeAll(async () => {
    [binaries, camera] = await Promise.all([
      resolveMediaBinaries(),
      startRtspCameraServer({ login: LOGIN, password: PASSWORD }),
    ]);
  });
  afterAll(async () => {
    await camera?.close();
  });

  it('runs ffmpeg itself, not a shell, with the URL as a single argument', async () => {
    const { ingest, sourceUrl } = await start(binaries.ffmpeg, 'argv');
    const argv = (await readFile(`/proc/${ingest.pid}/cmdline`, 'utf8')).split('\0').slice(0, -1);
    expect(argv[0]).toBe(binaries.ffmpeg.path);
    expect(argv.filter((arg) => arg === sourceUrl)).toHaveLength(1);
  });

  it('writes segments that ffprobe reads as H.264 video', async () => {
    const { segments } = await start(binaries.ffmpeg, 'probe');
    await vi.waitFor(() => expect(segments).not.toHaveLength(0), { timeout: 15_000, interval: 50 });
    const { stdout } = await run(binaries.ffprobe.path, [
      '-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'json', segments[0]!.path,
    ]);
    expect(JSON.parse(stdout).streams).toEqual([{ codec_type: 'video', codec_name: 'h264' }]);
  });

  it('ends ffmpeg once nobody reads its lifeline on fd 3, as when the server has died', async () => {
    // At 250 frames a second the lifeline's buffer fills, and is written, within about 2 s.
    const fast = await startRtspCameraServer({ fps: 250 });
    const segmentDir = await mkdtemp(join(tmpdir(), 'vss-lifeline-'));
    const spec = { uid: 'lifeline', sourceUrl: fast.url('lifeline'), segmentDir, segmentSeconds: SEGMENT_SECONDS };
    const args = ffmpegArguments(spec, { ffmpegMajor: binaries.ffmpeg.major, socketTimeoutSeconds: SOCKET_TIMEOUT_SECONDS });
    const child = spawn(binaries.ffmpeg.path, args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const lifeline = child.stdio[3] as Readable;
      await new Promise((resolve) => lifeline.once('data', resolve));
      lifeline.destroy();
      await vi.waitFor(() => expect(child.exitCode ?? child.signalCode).not.toBeNull(), { timeout: 15_000, interval: 50 });
    } finally {
      child.kill('SIGKILL');
      await exited;
      await Promise.all([fast.close(), rm(segmentDir, { recursive: true, force: true })]);
    }
  });

  it('kills an ffmpeg that ignores SIGTERM once the grace period is over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vss-stubborn-'));
    const stubborn: MediaBinary = { ...binaries.ffmpeg, path: join(dir, 'ffmpeg') };
    await writeFile(stubborn.path, "#!/bin/sh\ntrap '' TERM\necho ready >&2\nexec sleep 30\n", { mode: 0o755 });
    const stderr: unknown[] = [];
    const logger = { ...silentLogger, debug: (_: string, fields?: Record<string, unknown>) => stderr.push(fields?.line) };
    try {
      const { ingest, exits } = await startRun(
        ffmpegDriver({ ffmpeg: stubborn, stopGraceMs: 300, logger }),
        camera.url('stubborn', true),
        SEGMENT_SECONDS,
      );
      await vi.waitFor(() => expect(stderr).toContain('ready'), { timeout: 5000, interval: 20 });
      const pid = ingest.pid;
      const outcome = await Promise.race([
        ingest.stop().then(() => 'stopped'),
        delay(10_000, 'still running', { ref: false }),
      ]);
      expect(outcome).toBe('stopped');
      expect(() => process.kill(pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      expect(exits).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports once, without credentials, when ffmpeg cannot be started', async () => {
    const missing: MediaBinary = { ...binaries.ffmpeg, path: '/nonexistent/ffmpeg' };
    const { ingest, exits } = await start(missing, 'missing');
    await vi.waitFor(() => expect(exits).not.toHaveLength(0), { timeout: 5000, interval: 20 });
    await ingest.stop();
    expect(exits).toHaveLength(1);
    expect(exits[0]).toContain('ENOENT');
    expect(exits[0]).not.toContain('S3cret');
  });
});
