import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export interface MediaBinary {
  path: string;
  /** The first line of `-version`, e.g. "ffmpeg version 5.1.9-0+deb12u1". */
  version: string;
  /** The FFmpeg release line (4, 5, 6, 7), from its libavformat, since git builds name no release. */
  major: number;
  /** Where it came from: the system's PATH, an npm package, or the configuration. */
  source: 'configured' | 'system' | 'npm';
}

export interface MediaBinaries {
  ffmpeg: MediaBinary;
  ffprobe: MediaBinary;
}

async function probe(path: string, source: MediaBinary['source']): Promise<MediaBinary | undefined> {
  try {
    const { stdout } = await run(path, ['-hide_banner', '-version'], { timeout: 10_000 });
    const version = stdout.split('\n')[0]!.trim();
    // libavformat 58 shipped with FFmpeg 4, 59 with 5, and so on.
    const libavformat = /libavformat\s+(\d+)\./.exec(stdout);
    const major = libavformat ? Number(libavformat[1]) - 54 : 0;
    return { path, version, major, source };
  } catch {
    return undefined;
  }
}

/** The binary an npm package ships (`@ffmpeg-installer/ffmpeg`, `@ffprobe-installer/ffprobe`), if installed. */
function shipped(packageName: string): string | undefined {
  try {
    return (require(packageName) as { path: string }).path;
  } catch {
    return undefined;
  }
}

async function locate(
  name: 'ffmpeg' | 'ffprobe',
  configured: string | undefined,
  packageName: string,
): Promise<MediaBinary> {
  if (configured) {
    const binary = await probe(configured, 'configured');
    if (!binary) throw new Error(`The configured ${name} (${configured}) does not run.`);
    return binary;
  }
  const candidates: [string | undefined, MediaBinary['source']][] = [
    [name, 'system'],
    [shipped(packageName), 'npm'],
  ];
  for (const [path, source] of candidates) {
    const binary = path ? await probe(path, source) : undefined;
    if (binary) return binary;
  }
  throw new Error(`No ${name} found: install the system's ${name} or the npm package ${packageName}.`);
}

/**
 * Finds ffmpeg and ffprobe: the configured paths, else the system's (on PATH), else the binaries
 * shipped inside npm packages, so that a plain install is enough on a machine without ffmpeg.
 */
export async function resolveMediaBinaries(
  options: { ffmpegPath?: string; ffprobePath?: string } = {},
): Promise<MediaBinaries> {
  const [ffmpeg, ffprobe] = await Promise.all([
    locate('ffmpeg', options.ffmpegPath, '@ffmpeg-installer/ffmpeg'),
    locate('ffprobe', options.ffprobePath, '@ffprobe-installer/ffprobe'),
  ]);
  return { ffmpeg, ffprobe };
}
