import { describe, expect, it } from 'vitest';
import { resolveMediaBinaries } from './binaries';

describe('resolveMediaBinaries', () => {
  it('finds a working ffmpeg and ffprobe on a plain install', async () => {
    const { ffmpeg, ffprobe } = await resolveMediaBinaries();
    expect(ffmpeg.version).toMatch(/^ffmpeg version /);
    expect(ffprobe.version).toMatch(/^ffprobe version /);
    expect(['system', 'npm']).toContain(ffmpeg.source);
    expect(ffmpeg.major).toBeGreaterThanOrEqual(4);
  });

  it('refuses a configured path that does not run', async () => {
    await expect(resolveMediaBinaries({ ffmpegPath: '/nonexistent/ffmpeg' })).rejects.toThrow(
      'The configured ffmpeg (/nonexistent/ffmpeg) does not run.',
    );
  });
});
