import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { resolveMediaBinaries } from '../media/binaries';

const run = promisify(execFile);

export interface TestClipOptions {
  seconds?: number;
  width?: number;
  height?: number;
  fps?: number;
}

/** An H.264 Annex-B elementary stream: testsrc (a visible running clock), no B-frames, SPS/PPS before every IDR. */
export interface TestClip {
  path: string;
  width: number;
  height: number;
  fps: number;
  seconds: number;
  gopSeconds: number;
}

const GOP_SECONDS = 2;

// Memoised per process; the file cache below is what spares the other vitest workers the encode.
const clips = new Map<string, Promise<TestClip>>();

/** Encodes the clip once per machine (cached in the temporary directory) and returns where it is. */
export function ensureTestClip(options: TestClipOptions = {}): Promise<TestClip> {
  const { seconds = 10, width = 640, height = 360, fps = 25 } = options;
  const gop = GOP_SECONDS * fps;
  const encoding = [
    '-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=${fps}`, '-t', String(seconds), '-an',
    '-c:v', 'libx264', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-preset', 'veryfast',
    '-bf', '0', '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-b:v', '400k',
    '-x264-params', 'repeat-headers=1', '-f', 'h264',
  ];
  // The hash covers the whole command line, so changing how the clip is made invalidates the cache.
  const key = createHash('sha256').update(encoding.join(' ')).digest('hex').slice(0, 16);
  let clip = clips.get(key);
  if (!clip) {
    const path = join(tmpdir(), 'vss-test-clips', `${key}.h264`);
    clip = encode(path, encoding).then(() => ({ path, width, height, fps, seconds, gopSeconds: GOP_SECONDS }));
    clip.catch(() => clips.delete(key));
    clips.set(key, clip);
  }
  return clip;
}

async function encode(path: string, encoding: string[]): Promise<void> {
  const cached = await stat(path).catch(() => undefined);
  if (cached && cached.size > 0) return;
  await mkdir(dirname(path), { recursive: true });
  // Concurrent workers each encode to their own name; rename is atomic, so readers never see half a file.
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    const { ffmpeg } = await resolveMediaBinaries();
    await run(ffmpeg.path, ['-hide_banner', '-v', 'error', '-y', ...encoding, partial], { timeout: 120_000 });
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}
